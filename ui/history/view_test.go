package history_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/history"
)

// savedRun puts one finished run into a fresh SQLite history in a temp
// folder and returns the history and the run.
func savedRun(t *testing.T) (*store.DB, *rundoc.Run) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	created := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r := &rundoc.Run{Schema: rundoc.Schema, UUID: uuid.NewString(), Name: "baseline", CreatedAt: created, FinishedAt: created.Add(time.Hour),
		Status: rundoc.RunComplete, Origin: rundoc.OriginMeasured,
		Server:   rundoc.Server{Model: "acme/agent-4b", Engine: "vllm", Version: "0.11.0"},
		Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50.3},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 32, Status: rundoc.StatusValid, TotalTokS: 890.6},
		}}
	if err := db.SaveRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return db, r
}

// button finds the button labelled text under o.
func button(o fyne.CanvasObject, text string) *widget.Button {
	switch x := o.(type) {
	case *widget.Button:
		if x.Text == text {
			return x
		}
		return nil
	case *fyne.Container:
		for _, c := range x.Objects {
			if b := button(c, text); b != nil {
				return b
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if b := button(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

// loadedView shows the history view of db in a test window of the given
// size and waits for its first load. The window closes with the test.
func loadedView(t *testing.T, db *store.DB, size fyne.Size) (*history.View, fyne.Window) {
	t.Helper()
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	v := history.New(w, history.NewDB(db), "")
	w.SetContent(v.Content())
	w.Resize(size)
	loaded := make(chan struct{})
	v.ReloadThen(func() { close(loaded) })
	wait(t, loaded, "the first load")
	return v, w
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen in 10 s", what)
	}
}

// The view lists a run of the SQLite history with its headline figures,
// filters, and deletes it only after the user confirms.
func TestListsFiltersAndDeletesWithConfirmation(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	v, w := loadedView(t, db, fyne.NewSize(1200, 700))

	if n := len(v.Shown()); n != 1 {
		t.Fatalf("the view lists %d runs, want the one saved", n)
	}
	if got := v.Cell(0, 2); got != "baseline" {
		t.Errorf("name column %q", got)
	}
	if got := v.Cell(0, 3); !strings.Contains(got, "RTX 3060") {
		t.Errorf("GPU column %q", got)
	}
	if got := v.Cell(0, 8); got != "890.6" {
		t.Errorf("best tok/s column %q, want 890.6 (the best Valid decode cell)", got)
	}
	v.SetFilter("3060 agent")
	if len(v.Shown()) != 1 {
		t.Error("filter on GPU and model words hides the run")
	}
	v.SetFilter("llama")
	if len(v.Shown()) != 0 {
		t.Error("filter on a model the run does not have still lists it")
	}
	v.SetFilter("")

	v.Toggle(r.UUID)
	del := button(v.Content(), "Delete")
	if del == nil {
		t.Fatal("no Delete button")
	}
	test.Tap(del)
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Delete did not ask for confirmation")
	}
	if _, err := db.Get(context.Background(), r.UUID); err != nil {
		t.Fatalf("the run was deleted before the user confirmed: %v", err)
	}
	yes := button(top, "Delete")
	if yes == nil {
		t.Fatal("the confirmation has no Delete button")
	}
	edited := make(chan struct{})
	v.OnEdited = func() { close(edited) }
	test.Tap(yes)
	wait(t, edited, "the delete")
	if _, err := db.Get(context.Background(), r.UUID); err == nil {
		t.Error("the run is still in the history after the confirmed delete")
	}
	if n := len(v.Shown()); n != 0 {
		t.Errorf("the view still lists %d runs", n)
	}
}

// Memory, the fallback, keeps runs for the session and marks imports.
func TestMemoryImportIsIdempotentAndMarked(t *testing.T) {
	_, r := savedRun(t)
	m := &history.Memory{}
	for i := range 2 {
		added, err := m.Import(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if added != (i == 0) {
			t.Errorf("import %d: added = %v", i+1, added)
		}
	}
	list, _ := m.List(context.Background())
	if len(list) != 1 || !list[0].Imported || list[0].Best != 890.6 {
		t.Errorf("memory list = %+v, want one imported run with best 890.6", list)
	}
}

// Issue 24 item 9: with no match, the filter's sentence sits below the
// table's header row instead of over the GPU, Model and Flags titles.
func TestEmptyFilterSentenceBelowHeaders(t *testing.T) {
	test.NewTempApp(t)
	db, _ := savedRun(t)
	v, _ := loadedView(t, db, fyne.NewSize(1200, 700))
	v.SetFilter("no-such-run")
	if v.EmptyMessage() == "" {
		t.Fatal("no sentence for a filter that matches nothing")
	}
	d := fyne.CurrentApp().Driver()
	msg, table := history.EmptyLabelForTest(v), history.TableForTest(v)
	header := widget.NewLabel("Date").MinSize().Height
	if top, min := d.AbsolutePositionForObject(msg).Y, d.AbsolutePositionForObject(table).Y+header; top < min {
		t.Errorf("the sentence starts at %.0f, over the header row that ends at %.0f", top, min)
	}
}

// The Rig column names each run's rig and the rig filter keeps one rig's
// runs, saying so when none is left (issue 25).
func TestRigColumnAndFilter(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	for i, rig := range []string{"ssh://box3090", "local"} {
		o := *r
		o.UUID, o.Name = []string{"0b7c6a52-8f7e-4b53-9d4e-2f1b3c4d5e61", "0b7c6a52-8f7e-4b53-9d4e-2f1b3c4d5e62"}[i], "on "+rig
		o.CreatedAt = o.CreatedAt.Add(time.Duration(i+1) * time.Minute)
		o.Rig = &rundoc.Rig{Kind: map[bool]string{true: rundoc.RigSSH, false: rundoc.RigLocal}[i == 0], Name: rig}
		if err := db.SaveRun(context.Background(), &o); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := loadedView(t, db, fyne.NewSize(1200, 700))
	if got, want := v.Rigs(), []string{"All rigs", "local", "ssh://box3090"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rig choices %q, want %q (newest first)", got, want)
	}
	if n := len(v.Shown()); n != 3 {
		t.Fatalf("%d runs listed with all rigs, want 3", n)
	}
	v.SetRig("ssh://box3090")
	if s := v.Shown(); len(s) != 1 || s[0].Name != "on ssh://box3090" || v.Cell(0, 4) != "ssh://box3090" {
		t.Errorf("rig filter lists %d runs (rig column %q), want only the run on ssh://box3090", len(s), v.Cell(0, 4))
	}
	v.SetFilter("baseline")
	if msg := v.EmptyMessage(); !strings.Contains(msg, "No run on ssh://box3090 matches “baseline”") {
		t.Errorf("empty message %q does not name the rig", msg)
	}
	v.SetFilter("")
	v.SetRig("All rigs")
	v.SetFilter("box3090")
	if s := v.Shown(); len(s) != 1 {
		t.Errorf("the word filter finds %d runs by the rig's name, want 1", len(s))
	}
}

// Issue 41 minor 2: deleting a run of a Tune sweep says what happens to the
// sweep (its verdict is judged without the run; Resume measures it again);
// other runs are asked about as before.
func TestDeletePromptWarnsOfASweep(t *testing.T) {
	plain := &rundoc.Run{Name: "mine"}
	v1 := &rundoc.Run{Name: "tune 0a1b2c3d · your flags", Tags: []string{"sweep:0a1b2c3d"}}
	v2 := &rundoc.Run{Name: "tune 0a1b2c3d · --kv-cache-dtype fp8", Tags: []string{"sweep:0a1b2c3d"}}
	for _, tc := range []struct {
		runs []*rundoc.Run
		want string
	}{
		{[]*rundoc.Run{plain}, ""},
		{[]*rundoc.Run{v1}, "This run is a variant of Tune sweep 0a1b2c3d: the sweep's verdict will be judged without it"},
		{[]*rundoc.Run{plain, v1}, "One of these runs is a variant of Tune sweep 0a1b2c3d"},
		{[]*rundoc.Run{v1, v2}, "2 of these runs are variants of Tune sweep 0a1b2c3d"},
	} {
		_, msg := history.DeletePrompt(tc.runs)
		if tc.want == "" && strings.Contains(msg, "sweep") || !strings.Contains(msg, tc.want) {
			t.Errorf("delete prompt for %d runs: %q, want %q", len(tc.runs), msg, tc.want)
		}
	}
}

// cells returns the history table's cells under o that a click and a
// double-click reach, in the order drawn.
func cells(o fyne.CanvasObject) []fyne.DoubleTappable {
	var out []fyne.DoubleTappable
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			out = append(out, cells(c)...)
		}
	case fyne.Widget:
		if d, ok := x.(fyne.DoubleTappable); ok {
			if _, isLabel := x.(fyne.Tappable); isLabel {
				return append(out, d)
			}
		}
		for _, c := range test.WidgetRenderer(x).Objects() {
			out = append(out, cells(c)...)
		}
	}
	return out
}

// Issue 41 minor 11: a click anywhere on a row ticks it (not only the
// small check box), again unticks it; a double-click opens the run.
func TestRowClickTicksAndDoubleClickOpens(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	v, _ := loadedView(t, db, fyne.NewSize(1200, 700))
	cs := cells(v.Content())
	if len(cs) < 3 {
		t.Fatalf("found %d clickable cells in the table, want the row's", len(cs))
	}
	name := cs[2] // the Name column, away from the check box
	name.(fyne.Tappable).Tapped(&fyne.PointEvent{})
	if sel := v.Selected(); len(sel) != 1 || sel[0].UUID != r.UUID {
		t.Fatalf("a click on the row's name selected %d runs, want the run", len(sel))
	}
	name.(fyne.Tappable).Tapped(&fyne.PointEvent{})
	if n := len(v.Selected()); n != 0 {
		t.Errorf("a second click left %d runs selected, want none", n)
	}
	opened := make(chan *rundoc.Run, 1)
	v.OnShow = func(got *rundoc.Run) { opened <- got }
	test.DoubleTap(name)
	select {
	case got := <-opened:
		if got.UUID != r.UUID || len(got.Cells) != len(r.Cells) {
			t.Errorf("the double-click opened %s with %d cells, want %s whole", got.UUID, len(got.Cells), r.UUID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a double-click on the row did not open the run")
	}
}

// Issue 41 minor 11: Delete's question makes Cancel the default: Enter
// and Escape keep the run, and only the Delete button (in the danger
// colour) deletes. Fyne's confirm made the destructive Yes the default.
func TestDeleteDialogDefaultsToCancel(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	v, w := loadedView(t, db, fyne.NewSize(1200, 700))
	v.Toggle(r.UUID)
	for _, key := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEscape} {
		test.Tap(button(v.Content(), "Delete"))
		top := w.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("Delete did not ask")
		}
		if del := button(top, "Delete"); del == nil || del.Importance != widget.DangerImportance {
			t.Errorf("the Delete button is %+v, want it in the danger colour", del)
		}
		if c := button(top, "Cancel"); c == nil || c.Importance != widget.HighImportance {
			t.Errorf("the Cancel button is %+v, want it the default (high importance)", c)
		}
		w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: key})
		if w.Canvas().Overlays().Top() != nil {
			t.Errorf("%s left the delete question open", key)
		}
		if _, err := db.Get(context.Background(), r.UUID); err != nil {
			t.Fatalf("%s deleted the run: %v", key, err)
		}
	}
}
