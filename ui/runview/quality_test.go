//go:build !race

// The check runs on a goroutine that repaints through fyne.Do, which Fyne's
// test driver runs inline on that goroutine: the race detector would
// report the test driver's concurrency (see ui/app_test.go). Plain go test
// runs it (make test's second pass).

package runview_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/runview"
)

// demoQuality is the app's QualityFunc on the demo with flags: the probe
// read by session.NewQualityProbe, asked of the simulator by
// session.Quality. onProgress sees each item answered.
func demoQuality(flags []string, onProgress func(done, total int)) runview.QualityFunc {
	return func(ctx context.Context, name string, base *quality.Result, progress func(done, total int)) (*quality.Result, error) {
		probe, header, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: name, Demo: true, Progress: func(d, t int) {
			progress(d, t)
			onProgress(d, t)
		}})
		if err != nil {
			return nil, err
		}
		if base != nil {
			if err := quality.Comparable(base, header); err != nil {
				return nil, err
			}
		}
		return session.Quality(ctx, session.QualityTarget{Demo: true, DemoArgs: flags}, probe)
	}
}

func waitQuality(t *testing.T, v *runview.View) {
	t.Helper()
	select {
	case <-v.QualityDone():
	case <-time.After(60 * time.Second):
		t.Fatal("the quality check did not end in 60 s")
	}
}

// Cancel stops a check part-way: nothing is kept or offered as a
// baseline, the status says so, and Check quality works again.
func TestQualityCheckCancel(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	cancelled := false
	v.SetQuality(demoQuality(nil, func(done, total int) {
		if done == 5 && !cancelled {
			cancelled = true
			fyne.Do(v.CancelQuality)
		}
	}))
	v.SetQualityProbe(runview.ProbeGSM8K, "400")
	v.CheckQuality()
	waitQuality(t, v)
	if !cancelled || v.QualityChecking() || v.QualityResult() != nil || len(v.QualityBaselines()) != 1 {
		t.Fatalf("after Cancel: cancelled %v, checking %v, result %v, baselines %q", cancelled, v.QualityChecking(), v.QualityResult() != nil, v.QualityBaselines())
	}
	if s := v.QualityStatus(); s != "Quality check cancelled; nothing was kept." {
		t.Errorf("status after Cancel = %q", s)
	}
	v.SetQualityProbe(runview.ProbeMMLUPro, "30")
	v.CheckQuality()
	waitQuality(t, v)
	if r := v.QualityResult(); r == nil || r.Probe != "mmlu-pro:30" || len(r.Items) != 30 {
		t.Fatalf("a check after a cancelled one: %+v; status %q", r, v.QualityStatus())
	}
	if got := v.QualityText(); len(got) != 2 || !strings.HasPrefix(got[0], "mmlu-pro:30 on demo-choice") {
		t.Errorf("shown: %q", got)
	}
}

// Items that are not a count are refused in one sentence before anything
// runs.
func TestQualityCheckItemsRefused(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	asked := false
	v.SetQuality(func(context.Context, string, *quality.Result, func(int, int)) (*quality.Result, error) {
		asked = true
		return nil, context.Canceled
	})
	v.SetQualityProbe(runview.ProbeGSM8K, "two hundred")
	v.CheckQuality()
	if asked || v.QualityChecking() || !strings.HasPrefix(v.QualityStatus(), `Items must be a whole number of items to ask, such as 200, not "two hundred"`) {
		t.Errorf("items %q: asked %v, status %q", "two hundred", asked, v.QualityStatus())
	}
}
