package session

import (
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestFirstDemoTakesUnderAMinute holds the app's first demo (QuickPlan at
// FirstDemoSpeed, the default launch flags) to issue 41's promise: a
// result within a minute of Start. The estimate leaves room for the
// simulator's start and a busy machine (45 s of the 60), every decode cell
// runs, and the full matrix is still the longer plan it always was.
func TestFirstDemoTakesUnderAMinute(t *testing.T) {
	cfg, err := DemoConfig(vllm.LaunchConfig{}, FirstDemoSpeed)
	if err != nil {
		t.Fatal(err)
	}
	f, err := DemoFacts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	quick := rundoc.QuickPlan()
	d, runnable := Estimate(Predict(quick, f), f, nil)
	if want := len(quick.Contexts) * len(quick.Concurrency); runnable != want {
		t.Errorf("%d of the quick plan's %d decode cells will run on the default demo", runnable, want)
	}
	if d <= 0 || d > 45*time.Second {
		t.Errorf("the first demo is estimated at %v at %g×; want under 45 s (a result within a minute of Start)", d, float64(FirstDemoSpeed))
	}
	full, _ := Estimate(Predict(rundoc.DefaultPlan(), f), f, nil)
	if full < 5*d {
		t.Errorf("the full matrix (%v) is not much longer than the quick plan (%v): the quick plan is not quick", full, d)
	}
	t.Logf("first demo: about %v at %g×; the full matrix about %v", d, float64(FirstDemoSpeed), full)
}
