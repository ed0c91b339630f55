package predict

import (
	"context"
	"slices"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// RunRequest is the request that predicts run r as it was launched: the
// card it was measured on (the simulated profile's for a demo run, else
// its hardware snapshot's, NVLink from its topology), its model (with the
// facts the run itself gives when no lookup is needed: a simulator model,
// or the weights and KV bytes its roofline recorded), its flags and its
// plan, so a front end can show each measured figure beside its
// prediction. ok is false when the run does not say its card, or is a
// demo of a card RigBench predicted (no built-in profile). The caller adds
// the lookup and the history (BeforeRun's, so the run is not predicted
// from itself).
func RunRequest(r *rundoc.Run) (req Request, ok bool) {
	req.Plan = r.Plan
	if r.Launch != nil {
		req.Args = slices.Clone(r.Launch.Args)
		req.Model = r.Launch.Model
	}
	if m, ok := runModel(r, nil); ok && m.Source != SourceProfile {
		req.Facts = &m // the run's roofline: no lookup needed
	}
	cfg := runConfig(r)
	if r.Simulated {
		// The demo's model is its profile's (a served name is no id).
		p, ok := simulatedProfile(r, cfg, max(cfg.TensorParallelSize, 1)*max(cfg.PipelineParallelSize, 1))
		req.Demo, req.Model, req.Facts, req.Profile = true, "", nil, p
		return req, ok
	}
	if req.Model == "" {
		req.Model = r.Server.Model
	}
	if r.Hardware == nil || len(r.Hardware.GPUs) == 0 {
		return req, false
	}
	hw := *r.Hardware
	req.Snapshot, req.NVLink = &hw, nvlinked(r)
	return req, true
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

// RunsOnCard is h's, less r and what came after it (which then do not
// count toward limit either).
func (b beforeRun) RunsOnCard(ctx context.Context, card string, simulated bool, limit int, keep func(*rundoc.Run) bool) ([]*rundoc.Run, error) {
	return b.h.RunsOnCard(ctx, card, simulated, limit, func(o *rundoc.Run) bool {
		return o.UUID != b.r.UUID && o.CreatedAt.Before(b.r.CreatedAt) && (keep == nil || keep(o))
	})
}
