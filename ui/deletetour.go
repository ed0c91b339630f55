//go:build tour

package ui

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
)

// tourDelete is the screenshot tour's look at History's delete question
// for a run of the Tune sweep just measured: it warns what deleting does
// to the sweep, and Cancel is its default. Escape then closes it, as a
// user's key would.
func (u *UI) tourDelete(step func(func()), shot func(string, time.Duration)) {
	listed := make(chan struct{})
	step(func() {
		u.History.ReloadThen(func() { close(listed) })
		u.SelectTab(TabHistory)
	})
	<-listed
	found := false
	step(func() {
		for _, r := range u.History.Selected() {
			u.History.Toggle(r.UUID)
		}
		for _, r := range u.History.Shown() {
			if !found && strings.HasPrefix(r.Name, "tune ") {
				u.History.Toggle(r.UUID)
				found = true
			}
		}
		if found {
			u.History.AskDelete()
		}
	})
	if !found {
		return
	}
	shot("13b-history-delete-sweep-run", 800*time.Millisecond)
	step(func() {
		if k := u.win.Canvas().OnTypedKey(); k != nil {
			k(&fyne.KeyEvent{Name: fyne.KeyEscape})
		}
	})
}
