//go:build !race

package ui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/target"
)

// newUIWithDB is newUI with the history at db.
func newUIWithDB(t *testing.T, db string) (*ui.UI, fyne.Window) {
	t.Helper()
	t.Setenv(store.EnvDB, db)
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(func() { closeOpen(a, w) })
	u := ui.NewWithServices(a, w, testServices())
	select {
	case <-u.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("detection did not finish")
	}
	return u, w
}

// closeOpen closes w unless it is closed already (the test driver panics
// on a second Close).
func closeOpen(a fyne.App, w fyne.Window) {
	for _, o := range a.Driver().AllWindows() {
		if o == w {
			w.Close()
			return
		}
	}
}

// texts lists the text an object shows, its children's included.
func texts(o fyne.CanvasObject) string {
	var b strings.Builder
	for _, x := range test.LaidOutObjects(o) {
		switch x := x.(type) {
		case *canvas.Text:
			b.WriteString(x.Text + " ")
		case *widget.Label:
			b.WriteString(x.Text + " ")
		}
	}
	return b.String()
}

// When the history cannot be opened, the Run view says runs are not being
// saved (where, why, and what to do), a finished run says it was not
// saved, and closing the window asks first.
func TestUnsavedHistoryWarnsOnRunViewAndAsksBeforeQuit(t *testing.T) {
	if testing.Short() {
		t.Skip("a journey through the app with demo runs in real time (5 s or more): skipped with -short (make test runs it)")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(file, "x", "h.db") // a folder inside a file: cannot exist
	u, w := newUIWithDB(t, db)
	var warn string
	fyne.DoAndWait(func() { warn = u.Run.Unsaved() })
	if !strings.Contains(warn, db) || !strings.Contains(warn, "not being saved") || !strings.Contains(warn, "xport") {
		t.Errorf("Run view warning = %q, want where, that runs are not saved and Export", warn)
	}
	if strings.Contains(warn, "--db") {
		t.Errorf("Run view warning %q names a CLI flag", warn)
	}

	ended := make(chan struct{})
	fyne.DoAndWait(func() {
		u.Run.SetPlanText("0", "1", "", "10", "64")
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *rundoc.Run, err error) { prev(r, err); close(ended) }
		u.Run.Start()
	})
	select {
	case <-ended:
	case <-time.After(90 * time.Second):
		t.Fatal("the demo run did not finish in 90 s")
	}
	fyne.DoAndWait(func() {
		if s := u.Run.Status(); !strings.Contains(s, "not saved") {
			t.Errorf("run outcome %q does not say the run was not saved", s)
		}
		if !u.Run.CanExport() {
			t.Error("no Export offered for the unsaved run")
		}
		u.Close()
	})
	var top fyne.CanvasObject
	fyne.DoAndWait(func() { top = w.Canvas().Overlays().Top() })
	if top == nil {
		t.Fatal("the window closed without asking, losing the unsaved run")
	}
	if s := texts(top); !strings.Contains(s, "not saved") || strings.Contains(s, "are kept") {
		t.Errorf("quit dialog says %q", s)
	}
	// File ▸ Quit asks too: Fyne's own Quit item would quit at once.
	fileMenu := w.MainMenu().Items[0]
	quit := fileMenu.Items[len(fileMenu.Items)-1]
	if !quit.IsQuit || quit.Action == nil {
		t.Fatalf("File menu ends with %q (quit %v, action %v), want RigBench's Quit", quit.Label, quit.IsQuit, quit.Action != nil)
	}
	n := 0
	fyne.DoAndWait(func() {
		w.Canvas().Overlays().Top().Hide()
		w.Canvas().Overlays().Remove(w.Canvas().Overlays().Top())
		quit.Action()
		n = len(w.Canvas().Overlays().List())
	})
	if n != 1 {
		t.Errorf("File ▸ Quit shows %d dialogs, want the one asking first", n)
	}
}

// With the history saved, closing an idle window does not ask.
func TestCloseIdleWithSavedHistoryDoesNotAsk(t *testing.T) {
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	u := ui.NewWithServices(a, w, testServices())
	<-u.Ready()
	fyne.DoAndWait(u.Close)
	for _, o := range a.Driver().AllWindows() {
		if o == w {
			t.Error("an idle window with nothing unsaved asked before closing")
			w.Close()
		}
	}
}

// Switching from the demo to an endpoint not yet contacted forgets the
// demo server's facts: no cell is predicted over capacity from them and
// "max" is not the demo's length.
func TestSwitchingTargetForgetsDemoFacts(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		u.Run.SetPlanText("0, 128K", "1, 64", "", "10", "64")
		if l1, _, _ := u.Run.Matrix().Lines(131072, 64); l1 != string(rundoc.StatusOverCapacity) {
			t.Fatalf("demo preview 128K×64 = %q, want over capacity (the test's premise)", l1)
		}
		u.Target.Set(target.Choice{Kind: target.Endpoint, URL: "http://127.0.0.1:9"})
		if l1, _, _ := u.Run.Matrix().Lines(131072, 64); l1 != "will run" {
			t.Errorf("endpoint preview 128K×64 = %q, want will run (capacity unknown)", l1)
		}
		if e := u.Run.Estimate(); !strings.Contains(e, "unknown until it is contacted") {
			t.Errorf("estimate %q does not say the server's limits are unknown", e)
		}
	})
}
