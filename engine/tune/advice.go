package tune

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Expectation is a prediction of an advice that a sweep checks: the variant
// that sets Flag to Value gives cell (Context, Concurrency) Outcome.
type Expectation struct {
	Flag        string           `json:"flag"`
	Value       string           `json:"value"`
	Context     int              `json:"context"`
	Concurrency int              `json:"concurrency"`
	Outcome     diagnose.Outcome `json:"outcome"`
}

// Check is an expectation against what its variant measured.
type Check struct {
	Expectation
	// Measured is what the variant's cell got, worded as the outcome is
	// ("fits", "runs without queueing") or by its status ("Over
	// capacity"); "not measured" when the variant did not run.
	Measured string
	// Held is true when Measured is the predicted outcome.
	Held bool
}

// Text is "predicted: 1K×4 fits — measured: fits".
func (c Check) Text() string {
	return fmt.Sprintf("predicted: %s %s — measured: %s", rundoc.CellName(c.Context, c.Concurrency), c.Outcome, c.Measured)
}

// ErrNoAdvisedFlag is FromAdvice's error for a run whose advice names no
// launch flag with a prediction (only notes, or nothing).
var ErrNoAdvisedFlag = errors.New("the advice names no launch flag to try, so there is nothing to sweep")

// AdviceProbe is the quality probe a sweep of advice asks when an advised
// flag is lossy (vllm.Lossy): token agreement, the cheapest probe, which
// needs no data set and separates a lossy launch in seconds of card time.
const AdviceProbe = "agreement"

// FromAdvice turns a run's advice into a sweep that tries each advised flag
// on its own (one at a time) against the run's own launch, on the cells
// the advice predicts, and checks the predictions (Spec.Expect): "Tune
// this" of the app, and the loop issue 26 closes. The objective is total
// tok/s at the first predicted cell. A run RigBench did not launch (an
// endpoint) gets no advice to sweep. Where an advised flag is lossy
// (vllm.Lossy) the sweep asks AdviceProbe of every variant, so its
// verdict recommends the flag only if it keeps quality.
func FromAdvice(run *rundoc.Run, advice []diagnose.Advice) (Spec, error) {
	spec := Spec{ID: NewID(), Mode: OneAtATime, Target: TargetLaunch}
	if run.Simulated && (run.Launch == nil || run.Launch.Image == "") {
		spec.Target, spec.SimSpeed, spec.SimProfile = TargetDemo, run.Plan.SimSpeed, demoProfile(run.Server.Model)
	}
	if run.Launch != nil {
		cfg, err := vllm.FromRecord(*run.Launch)
		if err != nil {
			return Spec{}, fmt.Errorf("the run's launch flags cannot be read back: %w", err)
		}
		if spec.Target != TargetLaunch {
			// The demo's flags alone: the simulator serves its profile's
			// model, and its record names no image.
			cfg = vllm.LaunchConfig{Flags: cfg.Flags, Extra: cfg.Extra}
		}
		spec.Base = cfg
	}
	var contexts, conc []int
	for _, a := range advice {
		if a.Flag == "" || len(a.Predictions) == 0 {
			continue
		}
		d, err := NewDimension(a.Flag, []string{a.Value})
		if err != nil {
			return Spec{}, err
		}
		spec.Dimensions = append(spec.Dimensions, d)
		for _, p := range a.Predictions {
			spec.Expect = append(spec.Expect, Expectation{Flag: d.Flag, Value: d.Values[0], Context: p.Context, Concurrency: p.Concurrency, Outcome: p.Outcome})
			contexts, conc = append(contexts, p.Context), append(conc, p.Concurrency)
		}
	}
	if len(spec.Dimensions) == 0 {
		return Spec{}, ErrNoAdvisedFlag
	}
	for _, d := range spec.Dimensions {
		if vllm.Lossy(d.Flag, d.Values[0]) {
			// Speed bought with answers is no gain: the sweep checks.
			spec.Quality = AdviceProbe
		}
	}
	if spec.Target == TargetLaunch && run.Launch == nil {
		return Spec{}, errors.New("RigBench did not start this run's server, so it cannot launch it with other flags")
	}
	slices.Sort(contexts)
	slices.Sort(conc)
	spec.Plan = run.Plan
	spec.Plan.Contexts, spec.Plan.Concurrency = slices.Compact(contexts), slices.Compact(conc)
	spec.Plan.PrefillContexts, spec.Plan.KVCapacityOverride = nil, 0
	e := spec.Expect[0]
	spec.Objective = Objective{Kind: MaxTotalTokS, Context: e.Context, Concurrency: e.Concurrency}
	return spec, spec.Validate()
}

// demoProfile is the simulator profile that serves model (a demo run
// records the model, not the profile), "" for the default.
func demoProfile(model string) string {
	for _, n := range sim.ProfileNames() {
		if p, err := sim.ProfileByName(n); err == nil && p.Model == model && p.Name != sim.DefaultProfile().Name {
			return n
		}
	}
	return ""
}

// check compares each expectation of the spec with the cell its variant
// measured.
func (r *Result) check() []Check {
	var out []Check
	for _, e := range r.Spec.Expect {
		c := Check{Expectation: e, Measured: "not measured"}
		for _, v := range r.Variants {
			if v.Run == nil || !slices.ContainsFunc(v.Variant.Changes, func(f vllm.FlagValue) bool { return f.Name == e.Flag && f.Value == e.Value }) {
				continue
			}
			if cell := v.Run.Find(rundoc.PhaseDecode, e.Context, e.Concurrency); cell != nil {
				c.Measured = measuredOutcome(e, cell)
			}
		}
		c.Held = c.Measured == string(e.Outcome)
		out = append(out, c)
	}
	return out
}

// measuredOutcome words a cell as e's prediction would: a cell that ran
// fits; one that ran with all its requests at once runs without queueing.
func measuredOutcome(e Expectation, c *rundoc.Cell) string {
	switch {
	case e.Outcome == diagnose.Fits && c.Status.Ran():
		return string(diagnose.Fits)
	case e.Outcome == diagnose.NoQueue && c.Status == rundoc.StatusValid:
		return string(diagnose.NoQueue)
	case c.Status == rundoc.StatusQueued:
		return "queued"
	}
	return string(c.Status)
}
