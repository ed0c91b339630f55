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

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/target"
)

// testServices: no GPU, no Docker (so the demo is the default target), the
// real session and simulator, running fast.
func testServices() ui.Services {
	return ui.Services{
		Detect: func(context.Context) hardware.Snapshot {
			return hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "no NVIDIA driver found", CPU: hardware.CPU{Model: "Test CPU", PhysicalCores: 2, LogicalCores: 4}}
		},
		Docker: func(context.Context) hwview.Docker {
			return hwview.Docker{Checked: true, Problem: "Docker is not running."}
		},
		Session:  session.Run,
		SimSpeed: 200,
	}
}

func newUI(t *testing.T) (*ui.UI, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	u := ui.NewWithServices(a, w, testServices())
	select {
	case <-u.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("detection did not finish")
	}
	return u, w
}

// wait polls cond on the Fyne goroutine until it holds or the time is up.
func wait(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ok := false
		fyne.DoAndWait(func() { ok = cond() })
		if ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// A small demo run fills the matrix and lands in the history, labelled
// simulated.
func TestDemoRunFillsMatrixAndHistory(t *testing.T) {
	u, _ := newUI(t)
	if k := u.Target.Choice().Kind; k != target.Demo {
		t.Fatalf("default target without GPU and Docker = %q, want demo", k)
	}
	var finished *bench.Run
	var runErr error
	fyne.DoAndWait(func() {
		u.Run.SetPlanText("0, 1K", "1, 2", "", "1", "64")
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *bench.Run, err error) { prev(r, err); finished, runErr = r, err }
		u.Run.Start()
	})
	wait(t, 90*time.Second, "the demo run to finish", func() bool { return finished != nil || runErr != nil })
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
					t.Errorf("run matrix cell %s×%d = %q / %q, want tok/s and TTFT", bench.ContextLabel(c), n, l1, l2)
				}
			}
		}
	})
	// The run shows in Results, and (once the history has reloaded) in
	// History, labelled simulated.
	fyne.DoAndWait(func() {
		u.Results.SetRun(nil, nil)
		u.Results.SetRun(finished, nil)
	})
	wait(t, 10*time.Second, "the run in the history", func() bool {
		for _, r := range u.History.Shown() {
			if r.UUID == finished.UUID {
				return true
			}
		}
		return false
	})
	fyne.DoAndWait(func() {
		l1, _, ok := u.Results.Matrix().Lines(0, 1)
		if !ok || !strings.HasSuffix(l1, "tok/s") {
			t.Errorf("results matrix 0×1 = %q", l1)
		}
		if rows := u.Results.Rows(); len(rows) != len(finished.Cells) {
			t.Errorf("measurements table has %d rows, run has %d cells", len(rows), len(finished.Cells))
		}
		u.History.SetFilter("simulated")
		if len(u.History.Shown()) != 1 {
			t.Errorf("filter 'simulated' shows %d runs, want 1", len(u.History.Shown()))
		}
		u.History.SetFilter("no-such-model")
		if len(u.History.Shown()) != 0 {
			t.Errorf("filter 'no-such-model' shows %d runs", len(u.History.Shown()))
		}
	})
}

// Cancelling a run keeps what was measured and ends it as cancelled.
func TestCancelKeepsMeasuredCells(t *testing.T) {
	u, _ := newUI(t)
	var finished *bench.Run
	done := false
	fyne.DoAndWait(func() {
		u.Run.SetPlanText("0, 1K, 2K", "1, 2, 4", "", "2", "64")
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *bench.Run, err error) { prev(r, err); finished, done = r, true }
		u.Run.Start()
	})
	wait(t, 60*time.Second, "a first cell", func() bool {
		l1, _, _ := u.Run.Matrix().Lines(0, 1)
		return strings.HasSuffix(l1, "tok/s")
	})
	fyne.DoAndWait(u.Run.Cancel)
	wait(t, 30*time.Second, "the cancelled run to end", func() bool { return done })
	if finished == nil || finished.Status != bench.RunCancelled {
		t.Fatalf("after cancel the run is %+v, want status cancelled", finished)
	}
	if finished.Find(bench.PhaseDecode, 0, 1) == nil {
		t.Error("the measured cell was lost on cancel")
	}
}

func referenceRun(t *testing.T) string {
	t.Helper()
	m, _ := filepath.Glob("../../shared/reference/*.csv")
	if len(m) == 0 {
		t.Skip("no reference CSV in ../shared/reference")
	}
	return m[0]
}

// Selecting two runs (the imported reference and a second one) shows the
// comparison charts and the per-cell change table.
func TestCompareTwoRuns(t *testing.T) {
	u, _ := newUI(t)
	ref := referenceRun(t)
	var imported *bench.Run
	fyne.DoAndWait(func() {
		u.History.Import(ref, func(r *bench.Run, err error) {
			if err != nil {
				t.Errorf("import: %v", err)
			}
			imported = r
		})
	})
	wait(t, 10*time.Second, "the import", func() bool { return imported != nil || t.Failed() })
	if imported == nil {
		t.FailNow()
	}
	// A second run: the reference with every decode rate 10% higher, as a
	// flag change might give.
	tuned := *imported
	tuned.UUID, tuned.Name = "tuned-0001", "tuned"
	tuned.Cells = append([]bench.Cell(nil), imported.Cells...)
	for i := range tuned.Cells {
		tuned.Cells[i].TotalTokS *= 1.1
	}
	fyne.DoAndWait(func() {
		u.History.Source().Add(&tuned)
		u.History.Reload()
	})
	wait(t, 10*time.Second, "two runs listed", func() bool { return len(u.History.Shown()) == 2 })
	drawn := false
	fyne.DoAndWait(func() {
		// The reference first: it is the baseline changes are against.
		u.History.Toggle(imported.UUID)
		u.History.Toggle(tuned.UUID)
		u.Compare.SetRuns(u.History.Selected(), func() { drawn = true })
	})
	wait(t, 60*time.Second, "the comparison charts", func() bool { return drawn })
	fyne.DoAndWait(func() {
		if n := u.Compare.ChartsRendered(); n != 4 {
			t.Errorf("%d comparison charts drawn, want 4", n)
		}
		rows := u.Compare.Rows()
		if len(rows) < 2 || len(rows[0]) != 3 {
			t.Fatalf("change table = %v, want a header and 2 run columns", rows)
		}
		found := false
		for _, row := range rows[1:] {
			if row[0] == "0 × 1" {
				found = true
				if !strings.Contains(row[1]+row[2], "+10") {
					t.Errorf("0×1 row = %v, want a +10%% change", row)
				}
			}
		}
		if !found {
			t.Errorf("no 0 × 1 row in %v", rows)
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

func TestMain(m *testing.M) {
	os.Unsetenv(ui.TourEnv)
	os.Exit(m.Run())
}
