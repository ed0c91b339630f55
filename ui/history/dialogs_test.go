//go:build !race

// Left out of the race detector's pass: a rename writes off the UI
// goroutine and reports with fyne.Do, which Fyne's test driver runs inline
// there (pass 2 of make test runs it).

package history_test

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/ui/history"
)

// Issue 41 minor 11: the rename dialog takes Enter to rename and Escape to
// cancel, typed into its field (which has the focus), and an information
// dialog closes on either key.
func TestDialogsAnswerEnterAndEscape(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	v, w := loadedView(t, db, fyne.NewSize(1200, 700))
	v.Toggle(r.UUID)
	opened := func() *widget.Entry {
		t.Helper()
		done := make(chan struct{})
		history.SetSettledForTest(v, func() { close(done) })
		v.Rename()
		wait(t, done, "the rename dialog")
		if w.Canvas().Overlays().Top() == nil {
			t.Fatal("Rename opened no dialog")
		}
		return v.RenameField()
	}
	f := opened()
	f.SetText("renamed by Enter")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape in the name field left the rename dialog open")
	}
	edited := make(chan struct{})
	v.OnEdited = func() { close(edited) }
	f = opened()
	f.SetText("renamed by Enter")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	wait(t, edited, "the rename")
	if got, _ := db.Get(context.Background(), r.UUID); got == nil || got.Name != "renamed by Enter" {
		t.Errorf("after Enter the run is named %v, want \"renamed by Enter\"", got)
	}
	v.Toggle(r.UUID) // none ticked: Delete says to pick runs
	test.Tap(button(v.Content(), "Delete"))
	if w.Canvas().Overlays().Top() == nil {
		t.Fatal("Delete with nothing ticked said nothing")
	}
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.Canvas().Overlays().Top() != nil {
		t.Error("Escape left the information dialog open")
	}
	v.ImportDialog()
	if w.Canvas().Overlays().Top() == nil {
		t.Fatal("Import… opened no file dialog")
	}
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.Canvas().Overlays().Top() != nil {
		t.Error("Escape left the import file dialog open")
	}
}
