//go:build tour

package ui

import (
	"time"

	"fyne.io/fyne/v2"
)

// tourAbout is the screenshot tour's shot of Help ▸ About: the build,
// where the history and the preferences are, and the links to the docs.
func (u *UI) tourAbout(step func(func()), shot func(string, time.Duration)) {
	step(u.showAbout)
	shot("15-help-about", 800*time.Millisecond)
	step(func() {
		if k := u.win.Canvas().OnTypedKey(); k != nil {
			k(&fyne.KeyEvent{Name: fyne.KeyEscape})
		}
	})
}
