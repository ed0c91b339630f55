package predict

import (
	"context"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// RunRequest is the request that predicts run r as it was launched: the
// card it was measured on (the simulated profile's for a demo run, else
// its hardware snapshot's), its model, its flags and its plan, so a front
// end can show each measured figure beside its prediction. ok is false
// when the run does not say its card. The caller adds the lookup and the
// history (BeforeRun's, so the run is not predicted from itself).
func RunRequest(r *rundoc.Run) (req Request, ok bool) {
	req.Plan = r.Plan
	if r.Launch != nil {
		req.Args = slices.Clone(r.Launch.Args)
		req.Model = r.Launch.Model
	}
	if r.Simulated {
		// The demo's model is its profile's (a served name is no id).
		req.Demo, req.Model = true, ""
		req.Profile = runProfile(r, runConfig(r))
		return req, true
	}
	if req.Model == "" {
		req.Model = r.Server.Model
	}
	if r.Hardware == nil || len(r.Hardware.GPUs) == 0 {
		return req, false
	}
	hw := *r.Hardware
	req.Snapshot = &hw
	return req, true
}

// runProfile is the simulator profile a demo run was served by, as
// simulatedCard finds its card: its --profile, else the profile serving
// its model, else the flags' (the default).
func runProfile(r *rundoc.Run, cfg sim.Config) sim.Profile {
	if r.Launch != nil && slices.ContainsFunc(r.Launch.Args, func(a string) bool { return a == "--profile" || strings.HasPrefix(a, "--profile=") }) {
		return cfg.Profile
	}
	for _, name := range sim.ProfileNames() {
		if p, _ := sim.ProfileByName(name); p.Model == r.Server.Model {
			return p
		}
	}
	return cfg.Profile
}

// BeforeRun is h without run r and the runs made after it began: what a
// prediction made just before r would have learned from.
func BeforeRun(h History, r *rundoc.Run) History {
	if h == nil {
		return nil
	}
	return beforeRun{h: h, r: r}
}

type beforeRun struct {
	h History
	r *rundoc.Run
}

// RunsOnCard is h's, less r and what came after it.
func (b beforeRun) RunsOnCard(ctx context.Context, card string, simulated bool, limit int) ([]*rundoc.Run, error) {
	runs, err := b.h.RunsOnCard(ctx, card, simulated, limit)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(runs, func(o *rundoc.Run) bool {
		return o.UUID == b.r.UUID || !o.CreatedAt.Before(b.r.CreatedAt)
	}), nil
}
