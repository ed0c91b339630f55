package tune

import (
	"errors"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// The inputs of a sweep beside its workload (rundoc's fields) and its
// target (engine/session's), named as the CLI's flags are (rundoc.Field's
// rule), so each front end words a *rundoc.FieldError about one in its own
// terms: "--objective" in the CLI, "Objective" in the app.
const (
	// FieldVary is a flag to vary and its values ("FLAG=V1,V2").
	FieldVary rundoc.Field = "vary"
	// FieldObjective is what fastest means.
	FieldObjective rundoc.Field = "objective"
	// FieldConstraint is a limit every scored cell must meet.
	FieldConstraint rundoc.Field = "constraint"
	// FieldResume is the id of the sweep to continue.
	FieldResume rundoc.Field = "resume"
)

// DefaultObjective is what fastest means when the user does not say: the
// total output tok/s at the workload's largest cell.
const DefaultObjective = MaxTotalTokS

// ErrEndpoint is a sweep's error for an existing endpoint as its target;
// each front end adds how to choose another (the CLI's --launch or --demo,
// the app's target chooser).
var ErrEndpoint = errors.New("Tune is unavailable for an existing endpoint: it relaunches the server for each variant, and RigBench cannot relaunch a server it did not start")

// SpecInput is a sweep as the user typed it, in either front end: the
// CLI's flags of `tune` or the Tune view's form, one text each, with the
// target as session.TargetInput. Spec reads them all by one set of rules,
// so the same text gives the same sweep, or the same *rundoc.FieldError,
// whichever front end it was typed in.
type SpecInput struct {
	// ID continues sweep ID (the CLI's --resume with the sweep's flags
	// repeated); "" starts a new one.
	ID string
	// Vary are the flags to vary, each "FLAG=V1,V2" (ParseDimension).
	Vary []string
	// Mode is Grid ("" too) or OneAtATime.
	Mode Mode
	// Contexts, Concurrency, Window, Precision, MaxDuration and MaxOutput
	// are the workload every variant measures, as rundoc.PlanInput takes
	// them (Workload: contexts and concurrency are needed, MaxOutput ""
	// is DefaultMaxOutput).
	Contexts, Concurrency, Window, Precision, MaxDuration, MaxOutput string
	// Objective is NAME[@ARG] (ParseObjective); "" is DefaultObjective.
	Objective string
	// Constraints are FIGURE<=LIMIT or FIGURE>=LIMIT (ParseConstraint);
	// blank ones are none.
	Constraints []string
	// Target is where the variants run: the demo or a launch (its
	// configuration is the base every variant changes).
	Target session.TargetInput
	// Advice is the sweep FromAdvice built from a run (the app's "Tune
	// this"), nil for a sweep of the user's own: its base flags go over
	// the target's, and its predictions for the flags and values still
	// varied are checked by the verdict.
	Advice *Spec
	// Quality is the probe each variant is asked after its workload
	// ("gsm8k:200", "agreement"; "" none) and QualityDataset the file its
	// items come from ("" fetches them): Spec.Quality. The front end
	// builds the probe from them (Runner.QualityProbe). A sweep from
	// advice keeps the advice's probe when Quality is "".
	Quality, QualityDataset string
}

// Spec reads the input into a checked sweep (Spec.Validate). An error
// naming one input is a *rundoc.FieldError; ErrEndpoint and
// ErrNothingToVary are for each front end to word.
func (in SpecInput) Spec() (Spec, error) {
	plan, err := Workload(rundoc.PlanInput{Contexts: in.Contexts, Concurrency: in.Concurrency, Window: in.Window,
		Precision: in.Precision, MaxDuration: in.MaxDuration, MaxOutput: in.MaxOutput})
	if err != nil {
		return Spec{}, err
	}
	spec := Spec{ID: strings.TrimSpace(in.ID), Mode: in.Mode, Plan: plan,
		Quality: strings.TrimSpace(in.Quality), QualityDataset: strings.TrimSpace(in.QualityDataset)}
	if in.Advice != nil && spec.Quality == "" {
		spec.Quality = in.Advice.Quality
	}
	if spec.ID == "" {
		spec.ID = NewID()
	} else if err := CheckID(spec.ID); err != nil {
		return Spec{}, &rundoc.FieldError{Field: FieldResume, Msg: ": " + err.Error()}
	}
	if spec.Mode == "" {
		spec.Mode = Grid
	}
	for _, v := range in.Vary {
		d, err := ParseDimension(v)
		if err != nil {
			return Spec{}, &rundoc.FieldError{Field: FieldVary, Msg: err.Error()}
		}
		spec.Dimensions = append(spec.Dimensions, d)
	}
	obj := strings.TrimSpace(in.Objective)
	if obj == "" {
		obj = string(DefaultObjective)
	}
	if spec.Objective, err = ParseObjective(obj, plan); err != nil {
		return Spec{}, &rundoc.FieldError{Field: FieldObjective, Msg: err.Error()}
	}
	for _, c := range in.Constraints {
		if strings.TrimSpace(c) == "" {
			continue
		}
		k, err := ParseConstraint(c)
		if err != nil {
			return Spec{}, &rundoc.FieldError{Field: FieldConstraint, Msg: err.Error()}
		}
		spec.Constraints = append(spec.Constraints, k)
	}
	target := in.Target
	if a := in.Advice; a != nil {
		target.Launch = withAdvice(target.Launch, a)
		spec.Expect = stillVaried(a.Expect, spec.Dimensions)
	}
	if err := spec.setTarget(target); err != nil {
		return Spec{}, err
	}
	return spec, spec.Validate()
}

// Runner is the sweep's runner (NewRunner), each launch variant started
// as how says.
func (in SpecInput) Runner(how session.Launching) (*Runner, error) {
	spec, err := in.Spec()
	if err != nil {
		return nil, err
	}
	return NewRunner(spec, how)
}

// setTarget records where the variants run, checked as a run's target is
// (session.TargetInput.Options): the base flags the simulator must accept,
// or the launch's model and rig.
func (s *Spec) setTarget(t session.TargetInput) error {
	if t.Kind == session.Endpoint {
		return ErrEndpoint
	}
	// A sweep starts its own servers, never the one the app's Launch page
	// runs.
	t.Server = nil
	o, err := t.Options(session.Launching{})
	if err != nil {
		return err
	}
	s.Base = t.Launch
	switch t.Kind {
	case session.Demo:
		s.Target, s.SimSpeed = TargetDemo, o.Sim.Speed
		// The profile is kept when the user chose one (SimProfile or the
		// flags' --profile), so a resume runs the same simulator.
		if strings.TrimSpace(t.SimProfile) != "" || hasFlag(session.DemoArgs(t.Launch), "--profile") {
			s.SimProfile = o.Sim.Profile.Name
		}
	case session.Launch:
		s.Target, s.Rig = TargetLaunch, strings.TrimSpace(t.Rig)
		if t.Cluster.Given() {
			c := t.Cluster
			s.Cluster = &c
		}
	}
	return nil
}

// withAdvice is base with the advice's launch flags set over it.
func withAdvice(base vllm.LaunchConfig, a *Spec) vllm.LaunchConfig {
	for _, f := range a.Base.Flags {
		base.Set(f.Name, f.Value)
	}
	return base
}

// stillVaried are the expectations whose flag and value the dimensions
// still vary.
func stillVaried(expect []Expectation, dims []Dimension) []Expectation {
	var out []Expectation
	for _, e := range expect {
		for _, d := range dims {
			if d.Flag == e.Flag && slices.Contains(d.Values, e.Value) {
				out = append(out, e)
			}
		}
	}
	return out
}
