package tune_test

import (
	"errors"
	"testing"

	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestSpecInputReadsASweep: a sweep typed as text becomes the spec both
// front ends run: the workload with a sweep's defaults (no prefill,
// max_tokens tune.DefaultMaxOutput, the objective at the largest cell), the
// dimensions in the catalog's names, the demo's speed and, when the user
// chose one, its profile; blank constraints are none.
func TestSpecInputReadsASweep(t *testing.T) {
	var base vllm.LaunchConfig
	base.Set("--max-num-seqs", "32")
	in := tune.SpecInput{Vary: []string{"kv-cache-dtype=auto,fp8", "enable-prefix-caching=on,off"}, Mode: tune.OneAtATime,
		Contexts: "1K,16K", Concurrency: "8,32", Window: "30s", Constraints: []string{" ", "ttft_p90<=2s"},
		Target: session.TargetInput{Kind: session.Demo, SimSpeed: "20", Launch: base}}
	s, err := in.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if s.Target != tune.TargetDemo || s.SimSpeed != 20 || s.SimProfile != "" || s.Mode != tune.OneAtATime || tune.CheckID(s.ID) != nil {
		t.Errorf("target %q at %g, profile %q, mode %s, id %q", s.Target, s.SimSpeed, s.SimProfile, s.Mode, s.ID)
	}
	if s.Plan.MaxOutput != tune.DefaultMaxOutput || len(s.Plan.PrefillContexts) != 0 || s.Plan.DurationS != 30 ||
		s.Objective.String() != "total-tok-s@16Kx32" || len(s.Constraints) != 1 {
		t.Errorf("plan %+v, objective %s, constraints %v", s.Plan, s.Objective, s.Constraints)
	}
	if len(s.Dimensions) != 2 || s.Dimensions[1].Flag != "--enable-prefix-caching" || s.Dimensions[1].Values[0] != "true" {
		t.Errorf("dimensions %+v", s.Dimensions)
	}
	if v, _ := s.Base.Get("--max-num-seqs"); v != "32" {
		t.Errorf("base %+v: want the target's flags", s.Base)
	}
	// A profile the flags name is kept, so a resume runs that simulator.
	in.Target.Launch.Set("--profile", "tiny")
	in.Contexts = "1K"
	if s, err = in.Spec(); err != nil || s.SimProfile != "tiny" {
		t.Errorf("a sweep of the flags' --profile tiny keeps profile %q (%v)", s.SimProfile, err)
	}
	in.ID = "0123abcd"
	if s, err = in.Spec(); err != nil || s.ID != "0123abcd" {
		t.Errorf("a resumed sweep's id %q (%v)", s.ID, err)
	}
}

// TestSpecInputErrors: each input that cannot be read is a
// *rundoc.FieldError naming it, the endpoint and an empty sweep sentinels
// each front end words.
func TestSpecInputErrors(t *testing.T) {
	ok := tune.SpecInput{Vary: []string{"max-num-seqs=8,16"}, Contexts: "1K", Concurrency: "8",
		Target: session.TargetInput{Kind: session.Demo}}
	for name, c := range map[string]struct {
		change func(*tune.SpecInput)
		field  rundoc.Field
		is     error
	}{
		"no contexts":        {func(in *tune.SpecInput) { in.Contexts = "" }, rundoc.FieldContexts, nil},
		"a bad max output":   {func(in *tune.SpecInput) { in.MaxOutput = "lots" }, rundoc.FieldMaxOutput, nil},
		"a bad id":           {func(in *tune.SpecInput) { in.ID = "../x" }, tune.FieldResume, nil},
		"a secret flag":      {func(in *tune.SpecInput) { in.Vary = []string{"api-key=a,b"} }, tune.FieldVary, nil},
		"a cell not there":   {func(in *tune.SpecInput) { in.Objective = "ttft-p90@2Kx8" }, tune.FieldObjective, nil},
		"an unknown figure":  {func(in *tune.SpecInput) { in.Constraints = []string{"speed>=2"} }, tune.FieldConstraint, nil},
		"a slow demo":        {func(in *tune.SpecInput) { in.Target.SimSpeed = "0" }, session.FieldSimSpeed, nil},
		"a launch, no model": {func(in *tune.SpecInput) { in.Target.Kind = session.Launch }, session.FieldModel, nil},
		"an endpoint":        {func(in *tune.SpecInput) { in.Target = session.TargetInput{Kind: session.Endpoint, URL: "http://box"} }, "", tune.ErrEndpoint},
		"nothing to vary":    {func(in *tune.SpecInput) { in.Vary = nil }, "", tune.ErrNothingToVary},
	} {
		in := ok
		c.change(&in)
		_, err := in.Spec()
		var fe *rundoc.FieldError
		switch {
		case c.is != nil && !errors.Is(err, c.is):
			t.Errorf("%s: %v, want %v", name, err, c.is)
		case c.is == nil && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%s: %v, want a field error about %s", name, err, c.field)
		}
	}
	if _, err := ok.Spec(); err != nil {
		t.Fatalf("the sweep the cases change: %v", err)
	}
}

// TestSpecInputLaunch: a launch sweep's base is the launch's configuration
// with the advice's flags over it, its rig is kept for a resume, only the
// advice's predictions for values still varied are checked, and each
// variant starts as the front end's Launching says, on the rig UseRig
// gives.
func TestSpecInputLaunch(t *testing.T) {
	var advised vllm.LaunchConfig
	advised.Set("--max-num-seqs", "2")
	advice := &tune.Spec{Base: advised, Expect: []tune.Expectation{
		{Flag: "--max-num-seqs", Value: "4", Concurrency: 4, Outcome: "runs without queueing"},
		{Flag: "--max-num-seqs", Value: "8", Concurrency: 8, Outcome: "runs without queueing"}}}
	launch := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "Qwen/Qwen2.5-1.5B-Instruct", GPUs: "all"}
	launch.Set("--max-num-seqs", "64")
	launch.Set("--kv-cache-dtype", "fp8")
	in := tune.SpecInput{Vary: []string{"max-num-seqs=4"}, Mode: tune.OneAtATime, Contexts: "0", Concurrency: "4", Advice: advice,
		Target: session.TargetInput{Kind: session.Launch, Launch: launch, Rig: "ssh://me@box"}}
	r, err := in.Runner(session.Launching{KeepLeftovers: true})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Spec
	seqs, _ := s.Base.Get("--max-num-seqs")
	dtype, _ := s.Base.Get("--kv-cache-dtype")
	if s.Target != tune.TargetLaunch || s.Rig != "ssh://me@box" || !s.OnRig() || seqs != "2" || dtype != "fp8" || s.Base.Model != launch.Model {
		t.Errorf("spec %+v", s)
	}
	if len(s.Expect) != 1 || s.Expect[0].Value != "4" {
		t.Errorf("expectations %+v: want the one for the value varied", s.Expect)
	}
	if v, _ := launch.Get("--max-num-seqs"); v != "64" {
		t.Error("the advice changed the caller's configuration")
	}
	o, err := r.Target.Session(s.Base)
	l, ok := o.Launcher.(*session.DockerLauncher)
	if err != nil || !ok || !l.KeepLeftovers || l.Config.Model != launch.Model || l.Rig != nil {
		t.Fatalf("a variant's session %+v, %v", o, err)
	}
	conn := &rig.Conn{} // the rig's connection, as the front end made it
	r.UseRig(conn)
	if o, err = r.Target.Session(s.Base); err != nil || o.Launcher.(*session.DockerLauncher).Rig != conn {
		t.Errorf("after UseRig a variant starts on %v (%v), want the rig's connection", o.Launcher, err)
	}
}
