//go:build !race

// The journeys drive the app from the test goroutine while runs and reloads
// call fyne.Do from theirs. Fyne's test driver runs fyne.Do callbacks on
// the calling goroutine without serialising them (the real driver queues
// them onto the one UI goroutine), so the race detector would report the
// test driver's concurrency, not the app's. They run in plain go test.

package ui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/target"
)

func newUI(t *testing.T) (*ui.UI, fyne.Window) {
	t.Helper()
	return newUIWith(t, testServices())
}

func newUIWith(t *testing.T, svc ui.Services) (*ui.UI, fyne.Window) {
	t.Helper()
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	u := ui.NewWithServices(a, w, svc)
	select {
	case <-u.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("detection did not finish")
	}
	return u, w
}

// A small demo run fills the matrix and lands in the history, labelled
// simulated.
func TestDemoRunFillsMatrixAndHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("a journey through the app with demo runs in real time (5 s or more): skipped with -short (make test runs it)")
	}
	u, _ := newUI(t)
	if k := u.Target.Choice().Kind; k != target.Demo {
		t.Fatalf("default target without GPU and Docker = %q, want demo", k)
	}
	var finished *rundoc.Run
	var runErr error
	ended := make(chan struct{})
	fyne.DoAndWait(func() {
		u.Run.SetPlanText("0, 1K", "1, 2", "", "10", "64")
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *rundoc.Run, err error) { prev(r, err); finished, runErr = r, err; close(ended) }
		u.Run.Start()
	})
	select {
	case <-ended:
	case <-time.After(90 * time.Second):
		t.Fatal("the demo run did not finish in 90 s")
	}
	if runErr != nil {
		t.Fatalf("demo run: %v", runErr)
	}
	if !finished.Simulated {
		t.Error("a demo run is not marked simulated")
	}
	fyne.DoAndWait(func() {
		for _, c := range []int{0, 1024} {
			for _, n := range []int{1, 2} {
				l1, l2, ok := u.Run.Matrix().Lines(c, n)
				if !ok || !strings.HasSuffix(l1, "tok/s") || !strings.HasPrefix(l2, "TTFT") {
					t.Errorf("run matrix cell %s = %q / %q, want tok/s and TTFT", rundoc.CellName(c, n), l1, l2)
				}
			}
		}
	})
	// The run shows in Results and is in the history, labelled simulated.
	fyne.DoAndWait(func() {
		u.Results.SetRun(nil, nil)
		u.Results.SetRun(finished, nil)
		l1, _, ok := u.Results.Matrix().Lines(0, 1)
		if !ok || !strings.HasSuffix(l1, "tok/s") {
			t.Errorf("results matrix 0×1 = %q", l1)
		}
		if rows := u.Results.Rows(); len(rows) != len(finished.Cells) {
			t.Errorf("measurements table has %d rows, run has %d cells", len(rows), len(finished.Cells))
		}
	})
	runs, err := u.History.Source().List(context.Background())
	if err != nil || len(runs) != 1 || runs[0].Run.UUID != finished.UUID || !runs[0].Run.Simulated {
		t.Errorf("history after the run = %v (%v), want the simulated run", runs, err)
	}
	// The run is in the SQLite file itself, every cell saved: open it as
	// another reader would (rigbench-cli, the next session).
	db, err := store.Open(context.Background(), os.Getenv(store.EnvDB))
	if err != nil {
		t.Fatalf("opening the history file: %v", err)
	}
	defer db.Close()
	saved, err := db.Get(context.Background(), finished.UUID)
	if err != nil {
		t.Fatalf("the demo run is not in the history file: %v", err)
	}
	if !saved.Simulated || saved.Status != finished.Status || len(saved.Cells) != len(finished.Cells) {
		t.Errorf("saved run: simulated %v, status %s, %d cells; want simulated, %s, %d cells",
			saved.Simulated, saved.Status, len(saved.Cells), finished.Status, len(finished.Cells))
	}
	if h := u.History.Note(); !strings.Contains(h, os.Getenv(store.EnvDB)) {
		t.Errorf("history note = %q, want the database path", h)
	}
}

// Cancelling a run keeps what was measured and ends it as cancelled.
func TestCancelKeepsMeasuredCells(t *testing.T) {
	u, _ := newUI(t)
	var finished *rundoc.Run
	ended := make(chan struct{})
	firstCell := make(chan struct{})
	fyne.DoAndWait(func() {
		u.Run.SetPlanText("0, 1K, 2K", "1, 2, 4", "", "10", "64")
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *rundoc.Run, err error) { prev(r, err); finished = r; close(ended) }
		u.Run.Start()
	})
	// The runner reports progress; watch it through the session's own
	// observer list by waiting for the history's recorder-free path: poll
	// the run status line, which only the Fyne goroutine writes.
	go func() {
		for i := 0; i < 3000; i++ {
			ok := false
			fyne.DoAndWait(func() {
				ok = strings.HasPrefix(u.Run.Status(), "Cell 2") || strings.HasPrefix(u.Run.Status(), "Cell 3")
			})
			if ok {
				close(firstCell)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	select {
	case <-firstCell:
	case <-time.After(60 * time.Second):
		t.Fatal("no cell finished in 60 s")
	}
	fyne.DoAndWait(u.Run.Cancel)
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled run did not end in 30 s")
	}
	if finished == nil || finished.Status != rundoc.RunCancelled {
		t.Fatalf("after cancel the run is %+v, want status cancelled", finished)
	}
	measured := 0
	for _, c := range finished.Cells {
		if c.Status.Ran() {
			measured++
		}
	}
	if measured == 0 {
		t.Errorf("the measured cells were lost on cancel: %+v", finished.Cells)
	}
}

func referenceRun(t *testing.T) string {
	t.Helper()
	m, _ := filepath.Glob("../engine/report/testdata/ref_*.csv")
	if len(m) == 0 {
		t.Fatal("no reference CSV in engine/report/testdata")
	}
	return m[0]
}

// Selecting two runs (the imported reference and a second one) shows the
// comparison charts and the per-cell change table.
func TestCompareTwoRuns(t *testing.T) {
	u, _ := newUI(t)
	ref := referenceRun(t)
	imported, err := history.ImportFile(context.Background(), u.History.Source(), ref)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	// A second run: the reference with every decode rate 10% higher, as a
	// flag change might give.
	tuned := *imported
	tuned.UUID, tuned.Name = uuid.NewString(), "tuned"
	tuned.Cells = append([]rundoc.Cell(nil), imported.Cells...)
	for i := range tuned.Cells {
		tuned.Cells[i].TotalTokS *= 1.1
	}
	if err := u.History.Source().Add(context.Background(), &tuned); err != nil {
		t.Fatalf("saving the second run: %v", err)
	}
	entries, _ := u.History.Source().List(context.Background())
	var runs []*rundoc.Run
	for _, e := range entries {
		r, err := u.History.Source().Get(context.Background(), e.Run.UUID)
		if err != nil {
			t.Fatalf("get %s: %v", e.Run.UUID, err)
		}
		runs = append(runs, r)
	}
	drawn := make(chan struct{})
	fyne.DoAndWait(func() {
		u.History.Set(runs)
		if len(u.History.Shown()) != 2 {
			t.Errorf("history shows %d runs, want 2", len(u.History.Shown()))
		}
		// The reference first: it is the baseline changes are against.
		u.History.Toggle(imported.UUID)
		u.History.Toggle(tuned.UUID)
		u.Compare.SetRuns(u.History.Selected(), func() { close(drawn) })
	})
	select {
	case <-drawn:
	case <-time.After(60 * time.Second):
		t.Fatal("the comparison charts were not drawn in 60 s")
	}
	fyne.DoAndWait(func() {
		// Decode, per-request, TTFT, prefill and the trade-off (Pareto).
		if n := u.Compare.ChartsRendered(); n != 5 {
			t.Errorf("%d comparison charts drawn, want 5", n)
		}
		rows := u.Compare.Rows()
		if len(rows) < 2 || len(rows[0]) != 3 {
			t.Fatalf("change table = %v, want a header and 2 run columns", rows)
		}
		found := false
		for _, row := range rows[1:] {
			if row[0] == "0×1" {
				found = true
				if !strings.Contains(row[1]+row[2], "+10") {
					t.Errorf("0×1 row = %v, want a +10%% change", row)
				}
			}
		}
		if !found {
			t.Errorf("no 0×1 row in %v", rows)
		}
	})
}

// The app starts with the window size it remembered.
func TestRemembersWindowSize(t *testing.T) {
	a := test.NewTempApp(t)
	a.Preferences().SetFloat("window.width", 1000)
	a.Preferences().SetFloat("window.height", 700)
	w := test.NewWindow(nil)
	defer w.Close()
	ui.NewWithServices(a, w, testServices())
	if s := w.Canvas().Size(); s.Width != 1000 || s.Height != 700 {
		t.Errorf("window size %v, want 1000×700", s)
	}
}

// Detection reaches the Launch view: on a computer without an NVIDIA GPU it
// says so before the user fills in a model and waits for a pull.
func TestLaunchViewKnowsThereIsNoGPU(t *testing.T) {
	u, _ := newUI(t)
	if w := u.Launch.HardwareWarning(); !strings.Contains(w, "NVIDIA") {
		t.Errorf("Launch view warning %q, want it to say there is no NVIDIA GPU", w)
	}
}
