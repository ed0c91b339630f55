//go:build !race

// The predicted figures come from a goroutine through fyne.Do, which
// Fyne's test driver runs inline on that goroutine: the race detector
// flags it although the real driver serialises it. make test runs this
// file without -race.

package runview_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/runview"
)

// Issue "Before launching": the Run view's plan preview shows the demo's
// predicted figures for the cells that will run, the same as
// predict.Request.Do gives for the plan, labelled predicted; a plan edit
// predicts again, and no request (an endpoint) shows none.
func TestPlanPreviewShowsPredictedFigures(t *testing.T) {
	test.NewTempApp(t)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v := runview.New(nil)
	shown := make(chan struct{}, 64)
	runview.SetAfterPredictedForTest(v, func() {
		select {
		case shown <- struct{}{}:
		default:
		}
	})
	wait := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.After(time.Minute)
		for v.PredictedPending() || !ok() {
			select {
			case <-shown:
			case <-deadline:
				t.Fatalf("waiting for %s: the preview says %q", what, v.Predicted())
			}
		}
	}
	cfg := sim.DefaultConfig()
	facts, err := session.DemoFacts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v.SetSimulated(true)
	v.SetFacts(facts)
	base := predict.Request{Demo: true, Profile: cfg.Profile, History: db,
		Lookup: predict.Lookup{CacheDir: filepath.Join(dir, "models"), Offline: true}}
	v.SetPlan(rundoc.QuickPlan())
	v.SetPrediction(&base)
	for _, plan := range []rundoc.Plan{rundoc.QuickPlan(), func() rundoc.Plan {
		p := rundoc.QuickPlan()
		p.Concurrency = []int{2, 32}
		return p
	}()} {
		v.SetPlan(plan)
		req := base
		req.Plan = plan
		pr, err := req.Do(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, c := range pr.Cells {
			if c.Phase == rundoc.PhaseDecode && c.TotalTokS > 0 {
				d := c.Doc()
				want = append(want, rundoc.CellName(c.Context, c.Concurrency)+" "+rundoc.FigTotalTokS.Text(&d))
			}
		}
		if len(want) == 0 {
			t.Fatal("predict gave no decode cell that runs")
		}
		wait("the predicted figures", func() bool { return strings.Contains(v.Predicted(), want[0]) })
		got := v.Predicted()
		if !strings.HasPrefix(got, "Predicted (") || !strings.Contains(got, pr.Basis()) {
			t.Errorf("the preview says %q, want it labelled predicted with the basis %q", got, pr.Basis())
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("the preview %q lacks predict's %q", got, w)
			}
		}
		// The preview's matrix says each cell's predicted figure under
		// "will run".
		for _, c := range pr.Cells {
			if c.Phase != rundoc.PhaseDecode || c.Status != predict.StatusRuns {
				continue
			}
			d := c.Doc()
			l1, l2, ok := v.Matrix().Lines(c.Context, c.Concurrency)
			if want := "≈ " + rundoc.FigTotalTokS.WithUnit(&d) + " predicted"; !ok || l1 != "will run" || l2 != want {
				t.Errorf("matrix cell %s says %q / %q, want \"will run\" / %q", rundoc.CellName(c.Context, c.Concurrency), l1, l2, want)
			}
		}
	}
	v.SetPrediction(nil)
	if got := v.Predicted(); got != "" {
		t.Errorf("without a request the preview says %q", got)
	}
}
