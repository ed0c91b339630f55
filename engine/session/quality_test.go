package session_test

import (
	"context"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestRunAsksItsQualityProbe: a run with a quality probe asks it of its
// own server after the matrix; the run's end reaches the observers with
// the probe in the document (what the history records), paired with the
// baseline given; the probe's result equals the same probe asked of a
// fresh simulator with the same flags (the answers are the launch's).
func TestRunAsksItsQualityProbe(t *testing.T) {
	t.Parallel()
	ds, err := quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(40))
	if err != nil {
		t.Fatal(err)
	}
	probe := quality.TaskProbe{Name: "gsm8k:40", Dataset: ds, N: 40, Concurrency: 16}
	base, err := session.Quality(context.Background(), session.QualityTarget{Demo: true}, probe.Run)
	if err != nil {
		t.Fatal(err)
	}
	var flags vllm.LaunchConfig
	flags.Set("--kv-cache-dtype", "int4_per_token_head")
	cfg, err := session.DemoConfig(flags, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ended *rundoc.Run
	var started int
	watch := rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventRunDone {
			ended = e.Run
		}
	})
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 3, MaxOutput: 64}
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, SimLaunch: session.DemoLaunch(flags, cfg),
		Plan: plan, Hardware: noGPU, NoTelemetry: true, Observers: []rundoc.Observer{watch},
		Quality: &session.RunQuality{Name: "gsm8k:40", Probe: probe.Run, Baseline: base, BaselineRunID: "base-run", BaselineLabel: "your flags",
			Started: func() { started++ }}})
	if err != nil {
		t.Fatal(err)
	}
	if started != 1 || ended == nil || ended.Quality == nil {
		t.Fatalf("probe started %d times; the run's end carries quality %v", started, ended)
	}
	c, err := quality.FromRun(run.Quality)
	if err != nil || c.Result == nil || c.Baseline == nil || c.Baseline.Task == nil || c.Baseline.RunID != "base-run" {
		t.Fatalf("the run's quality %+v (%v), want a result paired with base-run", c, err)
	}
	// The same answers as a fresh simulator launched with the same flags.
	fresh, err := session.Quality(context.Background(), session.QualityTarget{Demo: true, DemoArgs: []string{"--kv-cache-dtype", "int4_per_token_head"}}, probe.Run)
	if err != nil {
		t.Fatal(err)
	}
	want, err := quality.Compare(base, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Baseline.Task; got.RightOnlyBaseline != want.RightOnlyBaseline || got.RightOnlyCandidate != want.RightOnlyCandidate || got.McNemarP != want.McNemarP {
		t.Errorf("paired in the run: %d/%d p %g; asked afresh: %d/%d p %g", got.RightOnlyBaseline, got.RightOnlyCandidate, got.McNemarP,
			want.RightOnlyBaseline, want.RightOnlyCandidate, want.McNemarP)
	}
	if !c.Result.Simulated || len(c.Result.Flags) != 2 {
		t.Errorf("the result does not say what answered: simulated %v, flags %v", c.Result.Simulated, c.Result.Flags)
	}
}
