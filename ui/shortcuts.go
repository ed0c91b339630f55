package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// Keyboard shortcuts: Ctrl+R (⌘R) starts a run, Ctrl+. or Escape cancels
// it, Ctrl+E exports the run shown.
func (u *UI) addShortcuts() {
	c := u.win.Canvas()
	mod := fyne.KeyModifierShortcutDefault
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: mod}, func(fyne.Shortcut) { u.startShortcut() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyPeriod, Modifier: mod}, func(fyne.Shortcut) { u.Run.Cancel() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyE, Modifier: mod}, func(fyne.Shortcut) { u.exportShown() })
	c.SetOnTypedKey(func(e *fyne.KeyEvent) {
		if e.Name == fyne.KeyEscape && u.Run.Running() {
			u.Run.Cancel()
		}
	})
}
