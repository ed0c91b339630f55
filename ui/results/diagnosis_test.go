//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package results_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/results"
)

// queuedRun is a demo run whose 0×4 cell queued behind --max-num-seqs 2.
func queuedRun() *rundoc.Run {
	return &rundoc.Run{UUID: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", Simulated: true, Status: rundoc.RunComplete,
		Launch: &rundoc.Launch{Model: "rigbench/tiny", Args: []string{"--max-num-seqs", "2"}},
		Plan:   rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 5, MaxOutput: 64},
		Server: rundoc.Server{Model: "rigbench/tiny", KVCapacityTokens: 3264, KVCapacitySource: rundoc.KVSourceMetrics,
			ServerFacts: rundoc.ServerFacts{Slots: 2, Roofline: &rundoc.Roofline{WeightsGiB: 0.5, WeightsSource: rundoc.RooflineLog,
				KVBytesPerToken: 32768, KVBytesSource: rundoc.RooflineLog, PeakBandwidthGBs: 100, BandwidthSource: rundoc.RooflineProfile}}},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 4, Status: rundoc.StatusQueued, TotalTokS: 180, MeasuredS: 5,
			RooflinePct: 55.6, ServerSamples: []rundoc.ServerSample{{T: 1, Running: 2, Waiting: 2}}}},
	}
}

// The Diagnosis tab names the queue bottleneck and the --max-num-seqs
// advice, and "Tune this" hands the Tune view a sweep of that flag on
// the cell with the prediction to check.
func TestDiagnosisTabAndTuneThis(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	var got *tune.Spec
	v.OnTune = func(s tune.Spec) { got = &s }
	v.SetRun(queuedRun(), nil)
	for _, want := range []string{"Roofline % rests on weights 0.5 GiB", "0×4: queue-bound (waiting 2, running 2 = --max-num-seqs)",
		"--max-num-seqs 4: 0×4 would stop queueing"} {
		if !strings.Contains(v.Diagnosis(), want) {
			t.Errorf("Diagnosis tab lacks %q:\n%s", want, v.Diagnosis())
		}
	}
	if !v.TuneButton().Visible() {
		t.Fatal("Tune this is hidden")
	}
	test.Tap(v.TuneButton())
	if got == nil || len(got.Dimensions) != 1 || got.Dimensions[0].Flag != "--max-num-seqs" || len(got.Expect) != 1 || got.Target != tune.TargetDemo {
		t.Errorf("Tune this gave %+v", got)
	}
	// Without advice to sweep, the button hides.
	v.SetRun(run(), nil)
	if v.TuneButton().Visible() || !strings.Contains(v.Diagnosis(), "no advice") {
		t.Errorf("a clean run: button visible %v, text %q", v.TuneButton().Visible(), v.Diagnosis())
	}
}
