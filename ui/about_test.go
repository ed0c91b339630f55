//go:build !race

package ui_test

import (
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/internal/version"
	"github.com/rigbench/rigbench/store"
)

// Issue 41: Help ▸ About names the build, where the history and the
// preferences are kept, and links METHOD.md and the docs; Escape closes it.
func TestHelpAbout(t *testing.T) {
	u, w := newUI(t)
	var about *fyne.MenuItem
	for _, m := range w.MainMenu().Items {
		if m.Label == "Help" {
			for _, it := range m.Items {
				if it.Label == "About RigBench" {
					about = it
				}
			}
		}
	}
	if about == nil {
		t.Fatal("no Help ▸ About RigBench")
	}
	f := u.About()
	if f.Version != version.Text() || f.Version == "" {
		t.Errorf("version %q, want %q", f.Version, version.Text())
	}
	if db := os.Getenv(store.EnvDB); !strings.Contains(f.History, db) {
		t.Errorf("history %q does not name the history file %s", f.History, db)
	}
	if !strings.HasSuffix(f.Preferences, "preferences.json") {
		t.Errorf("preferences %q, want the preferences file", f.Preferences)
	}
	var method bool
	for _, l := range f.Links {
		method = method || strings.HasSuffix(l.URL, "/METHOD.md")
	}
	if !method {
		t.Errorf("no link to METHOD.md in %+v", f.Links)
	}
	fyne.DoAndWait(about.Action)
	fyne.DoAndWait(func() {
		if w.Canvas().Overlays().Top() == nil {
			t.Fatal("About showed nothing")
		}
		w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
		if w.Canvas().Overlays().Top() != nil {
			t.Error("Escape left About open")
		}
	})
}
