//go:build !race

// The predicted figure comes from a goroutine through fyne.Do, which
// Fyne's test driver runs inline on that goroutine (see
// celldetails_test.go): make test runs this file without -race.

package results_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/predicted"
	"github.com/rigbench/rigbench/ui/results"
)

// Issue "Before launching": after a run, a decode cell's details show its
// predicted figure beside the measured one with the error in percent, as
// predict would have said before the run (learning from the runs before
// it only).
func TestCellDetailsShowPredictedBesideMeasured(t *testing.T) {
	test.NewTempApp(t)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src := predicted.Source{History: db, CacheDir: filepath.Join(dir, "models")}
	v := results.New()
	shown := make(chan struct{}, 8)
	results.SetAfterPredictedForTest(v, func() { shown <- struct{}{} })
	v.SetPrediction(src)
	w := test.NewWindow(v.Content())
	defer w.Close()
	w.Resize(fyne.NewSize(1000, 700))
	r := &rundoc.Run{UUID: "5e0c4a52-8f7e-4b53-9d4e-2f1b3c4d5e70", Simulated: true, Status: rundoc.RunComplete,
		CreatedAt: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC), Plan: rundoc.QuickPlan(),
		Server: rundoc.Server{Model: sim.DefaultProfile().Model},
		Cells:  []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 49.6, TTFTMs: 81}}}
	// The run itself is in the history: the prediction must not learn
	// from it.
	if err := db.SaveRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	v.SetRun(r, nil)
	test.Tap(v.Matrix().Cell(0, 1))
	select {
	case <-shown:
	case <-time.After(time.Minute):
		t.Fatal("no prediction was shown in a minute")
	}
	req, ok := predict.RunRequest(r)
	if !ok {
		t.Fatal("RunRequest: no card for a demo run")
	}
	req.Plan.Contexts, req.Plan.Concurrency = []int{0}, []int{1}
	req.Lookup = predict.Lookup{CacheDir: src.CacheDir, Offline: true}
	pr, err := req.Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var pc predict.Cell
	for _, c := range pr.Cells {
		if c.Phase == rundoc.PhaseDecode && c.Context == 0 && c.Concurrency == 1 {
			pc = c
		}
	}
	want := predicted.VersusMeasured(pc, &r.Cells[0], pr.Basis())
	got := labelTexts(w.Canvas().Overlays().Top())
	t.Logf("the details' predicted figure: %s", want)
	if !strings.Contains(got, results.PredictedDetail) || !strings.Contains(got, want) {
		t.Errorf("the details say\n%s\nwant %q", got, want)
	}
	if !strings.HasPrefix(want, "predicted ") || !strings.Contains(want, ", measured 49.6 (") || !strings.Contains(want, "%)") {
		t.Errorf("the predicted figure reads %q, want \"predicted … tok/s, measured 49.6 (±x.x%%)\"", want)
	}
}
