package runview_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/runview"
)

// fake is a StartFunc that sends events and returns run and err.
type fake struct {
	events []rundoc.Event
	run    *rundoc.Run
	err    error
}

func (f *fake) start(_ context.Context, _ rundoc.Plan, obs rundoc.Observer) (*rundoc.Run, error) {
	for _, e := range f.events {
		obs.Observe(e)
	}
	return f.run, f.err
}

// newView is a Run view whose runs are played by a fake.
func newView(t *testing.T) (*runview.View, *fake) {
	test.NewTempApp(t)
	f := &fake{}
	return runview.New(f.start), f
}

// runWith starts v with the fake sending events and returning run and err,
// and waits for the outcome.
func runWith(t *testing.T, v *runview.View, f *fake, events []rundoc.Event, run *rundoc.Run, err error) {
	t.Helper()
	f.events, f.run, f.err = events, run, err
	ended := make(chan struct{})
	v.OnFinished = func(*rundoc.Run, error) { close(ended) }
	v.Start()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
}

func plan22() rundoc.Plan {
	return rundoc.Plan{Contexts: []int{0, 1024}, Concurrency: []int{1, 2}, DurationS: 10, MaxOutput: 64}
}

func measured(c, n int) rundoc.Cell {
	return rundoc.Cell{Phase: rundoc.PhaseDecode, Context: c, Concurrency: n, Status: rundoc.StatusValid, TotalTokS: 50, TTFTMs: 100}
}

// A run that stops part-way shows the progress it made, keeps the plan's
// grid with the cells it never reached marked "not run", and says what
// happened in a plain sentence with the runner's detail below it.
func TestStoppedRunKeepsGridAndProgress(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	cell := measured(0, 1)
	failed := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed,
		Reason: "warm-up failed: cannot reach the server at http://127.0.0.1:18000: check that it is running and the URL is right\ncannot reach the server at http://127.0.0.1:18000: check that it is running and the URL is right"}
	doc := &rundoc.Run{Plan: plan22(), Status: rundoc.RunFailed, Cells: []rundoc.Cell{cell, failed}}
	events := []rundoc.Event{
		{Kind: rundoc.EventRunStarted, Run: &rundoc.Run{Plan: plan22()}, Total: 4},
		{Kind: rundoc.EventCellDone, Cell: &cell, Index: 0, Total: 4},
		{Kind: rundoc.EventCellDone, Cell: &failed, Index: 1, Total: 4},
		{Kind: rundoc.EventRunDone, Run: doc, Index: 2, Total: 2},
	}
	err := &bench.FailuresError{Count: 2, Last: failed.Reason, Unreachable: true}
	runWith(t, v, f, events, doc, err)
	if p := v.Progress(); p != 0.5 {
		t.Errorf("progress after 2 of 4 cells = %v, want 0.5", p)
	}
	for _, k := range [][2]int{{1024, 1}, {1024, 2}} {
		if l1, _, ok := v.Matrix().Lines(k[0], k[1]); !ok || l1 != "not run" {
			t.Errorf("unreached cell %v = %q (in grid: %v), want \"not run\"", k, l1, ok)
		}
	}
	if s := v.Status(); s != "The server stopped answering; the 1 measured cell is kept." {
		t.Errorf("status = %q", s)
	}
	if d := v.Detail(); d != "Last error: Warm-up failed: cannot reach the server at http://127.0.0.1:18000: check that it is running and the URL is right." {
		t.Errorf("detail = %q, want the last failed cell's reason once", d)
	}
}

// Cells that kept failing while the server answered (HTTP 500s) read as
// such, even when a reason's text mentions an unreachable server: the
// outcome follows the engine's typed error, not its words.
func TestCellsKeptFailingReadFromTheTypedError(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	cell := measured(0, 1)
	failed := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed,
		Reason: "1 of 2 requests failed: the server answered HTTP 500 (it said: cannot reach the server at the backend)"}
	doc := &rundoc.Run{Plan: plan22(), Status: rundoc.RunFailed, Cells: []rundoc.Cell{cell, failed}}
	runWith(t, v, f, []rundoc.Event{{Kind: rundoc.EventRunDone, Run: doc, Index: 2, Total: 2}}, doc,
		&bench.FailuresError{Count: 2, Last: failed.Reason})
	if s := v.Status(); s != "The run stopped because cells kept failing; the 1 measured cell is kept." {
		t.Errorf("status = %q", s)
	}
}

// A run that fails before its first cell (a dead port, a wrong key) keeps
// the planned grid, shows no progress and says it measured nothing.
func TestRunFailingAtOnceKeepsPlanGrid(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	// The session's document when discovery failed: no plan, no cells.
	doc := &rundoc.Run{Status: rundoc.RunFailed}
	runWith(t, v, f, []rundoc.Event{{Kind: rundoc.EventRunDone, Run: doc}}, doc,
		errors.New("cannot reach the server at http://127.0.0.1:18999: check that it is running and the URL is right"))
	if p := v.Progress(); p != 0 {
		t.Errorf("progress = %v, want 0", p)
	}
	if l1, _, ok := v.Matrix().Lines(0, 1); !ok || l1 != "not run" {
		t.Errorf("cell 0×1 = %q (in grid: %v), want \"not run\"", l1, ok)
	}
	if s := v.Status(); strings.Contains(s, "100") || !strings.Contains(s, "before measuring") {
		t.Errorf("status = %q", s)
	}
	if d := v.Detail(); !strings.HasPrefix(d, "Cannot reach the server") {
		t.Errorf("detail = %q", d)
	}
}

// A start the app refuses (no URL) leaves the preview as it was.
func TestRefusedStartKeepsPreview(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	runWith(t, v, f, nil, nil, errors.New("Enter the endpoint's URL, such as http://127.0.0.1:8000."))
	if l1, _, ok := v.Matrix().Lines(1024, 2); !ok || l1 != "will run" {
		t.Errorf("cell 1K×2 = %q (in grid: %v), want \"will run\"", l1, ok)
	}
	if p := v.Progress(); p != 0 {
		t.Errorf("progress = %v, want 0", p)
	}
	if d := v.Status() + " " + v.Detail(); !strings.Contains(d, "Enter the endpoint's URL") {
		t.Errorf("status and detail %q do not say what to do", d)
	}
}

// Cancelling before any cell finished does not speak of "the 0 cells".
func TestCancelBeforeAnyCell(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	doc := &rundoc.Run{Plan: plan22(), Status: rundoc.RunCancelled}
	runWith(t, v, f, []rundoc.Event{{Kind: rundoc.EventRunStarted, Run: &rundoc.Run{Plan: plan22()}, Total: 4}, {Kind: rundoc.EventRunDone, Run: doc}}, doc, context.Canceled)
	if s := v.Status(); s != "Run cancelled before any cell was measured." {
		t.Errorf("status = %q", s)
	}
	if l1, _, _ := v.Matrix().Lines(0, 1); l1 != "not run" {
		t.Errorf("cell 0×1 = %q, want \"not run\"", l1)
	}
}

// A complete run fills the bar.
func TestCompleteRunFillsProgress(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0", "1", "", "10", "64")
	p := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 10, MaxOutput: 64}
	cell := measured(0, 1)
	doc := &rundoc.Run{Plan: p, Status: rundoc.RunComplete, Cells: []rundoc.Cell{cell}}
	runWith(t, v, f, []rundoc.Event{
		{Kind: rundoc.EventRunStarted, Run: &rundoc.Run{Plan: p}, Total: 1},
		{Kind: rundoc.EventCellDone, Cell: &cell, Index: 0, Total: 1},
		{Kind: rundoc.EventRunDone, Run: doc, Index: 1, Total: 1},
	}, doc, nil)
	if v.Progress() != 1 || v.Status() != "Run complete: 1 cell measured." {
		t.Errorf("progress %v, status %q", v.Progress(), v.Status())
	}
}

// A long error does not widen the view: the status line is cut to the
// space there is and the whole text wraps on the detail line.
func TestLongMessageKeepsLayout(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0", "1", "", "10", "64")
	before := v.Content().MinSize().Width
	long := "cannot reach the server at http://127.0.0.1:18000/" + strings.Repeat("very/long/path/", 30) + ": check that it is running and the URL is right"
	runWith(t, v, f, nil, &rundoc.Run{Status: rundoc.RunFailed}, errors.New(long))
	if after := v.Content().MinSize().Width; after > before+1 {
		t.Errorf("the view's minimum width grew from %v to %v with a long message", before, after)
	}
}

// Where runs are not saved, the outcome says so.
func TestOutcomeSaysNotSaved(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0", "1", "", "10", "64")
	v.SetUnsaved("Runs are not being saved: the history could not be opened.")
	if !strings.Contains(v.Unsaved(), "not being saved") {
		t.Errorf("unsaved banner = %q", v.Unsaved())
	}
	v.Saved = func(*rundoc.Run) bool { return false }
	v.OnExport = func(*rundoc.Run) {}
	p := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 10, MaxOutput: 64}
	doc := &rundoc.Run{Plan: p, Status: rundoc.RunComplete, Cells: []rundoc.Cell{measured(0, 1)}}
	runWith(t, v, f, nil, doc, nil)
	if s := v.Status(); !strings.Contains(s, "not saved") {
		t.Errorf("status %q does not say the run was not saved", s)
	}
	if !v.CanExport() {
		t.Error("no Export button for an unsaved run")
	}
}

// An invalid plan has no estimate: the last valid plan's would mislead.
func TestInvalidPlanClearsEstimate(t *testing.T) {
	v, _ := newView(t)
	v.SetPlanText("0, 16K", "1, 2", "", "10", "64")
	if v.Estimate() == "" {
		t.Fatal("no estimate for a valid plan")
	}
	v.SetPlanText("abc", "", "", "", "")
	if e := v.Estimate(); e != "" {
		t.Errorf("estimate %q kept for an invalid plan", e)
	}
}

// A run stopped by a dead server says so, with the engine's sentence (where
// it died, what was kept) and the app's way on: Resume in Results.
func TestServerGoneOutcomeOffersResume(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	cell := measured(0, 1)
	failed := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed,
		Reason: "the server closed every connection 13.1 s into the window and refused new ones"}
	doc := &rundoc.Run{Plan: plan22(), Status: rundoc.RunFailed, Cells: []rundoc.Cell{cell, failed}}
	err := &bench.ServerGoneError{URL: "http://127.0.0.1:8089", Cell: "decode 0×2", Where: "13.1 s into the window", Kept: 1, Total: 4}
	runWith(t, v, f, []rundoc.Event{{Kind: rundoc.EventRunDone, Run: doc}}, doc, err)
	if s := v.Status(); !strings.HasPrefix(s, "The server stopped answering; the 1 measured cell") {
		t.Errorf("status = %q", s)
	}
	want := "The server at http://127.0.0.1:8089 stopped answering during cell decode 0×2 (13.1 s into the window); 1 of 4 cells were measured and kept; start the server again and press Resume in Results to measure the rest."
	if d := v.Detail(); d != want {
		t.Errorf("detail = %q\nwant       %q", d, want)
	}
}

// A run stopped by a server that stopped producing tokens (issue 35: a
// frozen process, a hung GPU) says so, not "stopped answering", with the
// engine's sentence and the same way on: Resume in Results.
func TestStalledServerOutcomeOffersResume(t *testing.T) {
	v, f := newView(t)
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	failed := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed,
		Reason: "the server stopped producing tokens 4.1 s into the window: no token came for 5 s"}
	doc := &rundoc.Run{Plan: plan22(), Status: rundoc.RunFailed, Cells: []rundoc.Cell{measured(0, 1), failed}}
	err := &bench.ServerGoneError{URL: "http://127.0.0.1:8089", Cell: "decode 0×2", Where: "4.1 s into the window", Kept: 1, Total: 4,
		Err: &bench.StalledError{Silent: 5 * time.Second, Fit: "2 × (0 + 64) tokens fit the KV capacity of 3264 tokens", Unanswered: true}}
	runWith(t, v, f, []rundoc.Event{{Kind: rundoc.EventRunDone, Run: doc}}, doc, err)
	if s := v.Status(); !strings.HasPrefix(s, "The server stopped producing tokens; the 1 measured cell") {
		t.Errorf("status = %q", s)
	}
	want := "The server at http://127.0.0.1:8089 stopped producing tokens during cell decode 0×2 (4.1 s into the window): no token came for 5.0 s although 2 × (0 + 64) tokens fit the KV capacity of 3264 tokens, and the server showed no sign of a full KV cache; it did not answer /metrics either (a stopped or paused process, or a hung GPU); 1 of 4 cells were measured and kept; start the server again and press Resume in Results to measure the rest."
	if d := v.Detail(); d != want {
		t.Errorf("detail = %q\nwant       %q", d, want)
	}
}

// Issue 41 minor 16: the outcome of a finished run stays on screen while
// the plan is edited, marked as the previous run's ("Run complete: 4
// cells" read as the new plan's), and a status too long for its room is
// given whole on the line below instead of cut ("…300ms at …").
func TestStatusSaysWhichRunAndWhole(t *testing.T) {
	v, f := newView(t)
	w := test.NewWindow(v.Content())
	t.Cleanup(w.Close)
	w.Resize(fyne.NewSize(900, 600))
	v.SetPlanText("0, 1K", "1, 2", "", "10", "64")
	doc := &rundoc.Run{Plan: plan22(), Status: rundoc.RunComplete,
		Cells: []rundoc.Cell{measured(0, 1), measured(0, 2), measured(1024, 1), measured(1024, 2)}}
	runWith(t, v, f, nil, doc, nil)
	done := v.Status()
	if done == "" || strings.HasPrefix(done, "Previous run") {
		t.Fatalf("outcome %q", done)
	}
	v.SetPlanText("", "1, 2, 4", "", "", "")
	if s := v.Status(); s != "Previous run: "+done {
		t.Errorf("after editing the plan the status reads %q, want it marked as the previous run's: %q", s, "Previous run: "+done)
	}
	v.SetPlanText("", "1, 2, 8", "", "", "")
	if s := v.Status(); strings.Count(s, "Previous run") != 1 {
		t.Errorf("a second edit: %q", s)
	}

	// An outcome longer than its room (a run not saved says how to keep
	// it): the line is cut there, and the detail holds it whole.
	v.Saved = func(*rundoc.Run) bool { return false }
	runWith(t, v, f, nil, doc, nil)
	if s, d := v.Status(), v.Detail(); !strings.Contains(s, "use Export to keep it") || d != s {
		t.Errorf("a long status is not given whole below it: status %q, detail %q", s, d)
	}
}
