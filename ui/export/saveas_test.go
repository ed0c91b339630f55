//go:build !race

// Left out of the race detector's pass: Save as writes off the UI
// goroutine and reports with fyne.Do, which Fyne's test driver runs inline
// there (pass 2 of make test runs these).

package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// formParts finds the Save as dialog's path entry and its Save button.
func formParts(t *testing.T, win fyne.Window) (*dialogkeys.Field, *widget.Button) {
	t.Helper()
	top := win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog open")
	}
	var entry *dialogkeys.Field
	var save *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *dialogkeys.Field:
			entry = w
		case *widget.Button:
			if w.Text == "Save" {
				save = w
			}
		case fyne.Widget:
			r := test.TempWidgetRenderer(t, w)
			for _, c := range r.Objects() {
				walk(c)
			}
			return
		}
		if c, ok := o.(*fyne.Container); ok {
			for _, x := range c.Objects {
				walk(x)
			}
		}
	}
	walk(top)
	if entry == nil || save == nil {
		t.Fatalf("the dialog has no path entry (%v) or Save button (%v)", entry != nil, save != nil)
	}
	return entry, save
}

// Issue 41 minor 12: Save as takes a typed path, prefilled with the last
// export's folder and the file's name; a last folder that cannot be
// written is replaced by one that can (the file dialog opened in it); the
// typed file is written and its folder remembered; a path naming a folder
// or a missing folder is refused in a sentence before anything is written.
func TestSaveAsTakesATypedPath(t *testing.T) {
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	home := t.TempDir()
	t.Setenv("HOME", home)
	if os.Getuid() != 0 {
		ro := filepath.Join(t.TempDir(), "read-only")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		a.Preferences().SetString(prefLastDir, ro)
	} else {
		// Root writes anywhere a mode allows nothing: a folder that is
		// gone is the folder that cannot be written then.
		a.Preferences().SetString(prefLastDir, filepath.Join(t.TempDir(), "gone"))
	}
	wrote := make(chan string, 1)
	SaveAs(win, "run.md", nil, func(p string) error { wrote <- p; return os.WriteFile(p, []byte("x"), 0o644) })
	entry, save := formParts(t, win)
	if want := filepath.Join(home, "run.md"); entry.Text != want {
		t.Errorf("prefilled %q, want %q (the last folder cannot be written)", entry.Text, want)
	}
	if entry.Validate() != nil || save.Disabled() {
		t.Errorf("the prefilled path is refused: %v", entry.Validate())
	}
	for typed, why := range map[string]string{home: "is a folder", filepath.Join(home, "no", "x.md"): "does not exist", "": "type the file's path"} {
		test.Type(entry, "")
		entry.SetText(typed)
		if err := entry.Validate(); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("typed %q: %v, want %q", typed, err, why)
		}
	}
	out := t.TempDir()
	entry.SetText(filepath.Join(out, "mine.md"))
	// Enter in the path saves, as the Save button does.
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	select {
	case p := <-wrote:
		if p != filepath.Join(out, "mine.md") {
			t.Errorf("wrote %s", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the typed path was never written")
	}
	if got := a.Preferences().String(prefLastDir); got != out {
		t.Errorf("the next export opens in %q, want %q", got, out)
	}
	// "~/" is the home folder.
	if p, err := typedPath("~/x.csv"); err != nil || p != filepath.Join(home, "x.csv") {
		t.Errorf("~/x.csv read as %q, %v", p, err)
	}
}

// Escape typed into Save as's path closes it without writing anything.
func TestSaveAsClosesOnEscape(t *testing.T) {
	test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1280, 800))
	t.Setenv("HOME", t.TempDir())
	SaveAs(win, "run.md", nil, func(string) error { t.Error("written after Escape"); return nil })
	entry, _ := formParts(t, win)
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if top := win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("Save as still open after Escape")
	}
}
