package launchview

// SetTokenForTest types into the token field.
func SetTokenForTest(v *View, s string) { v.token.SetText(s) }

// SetAfterStartForTest sets the hook called on the Fyne goroutine once a
// launch has been reported back (the test driver runs fyne.Do on the
// launcher's goroutine, so a test waits on this before reading widgets).
func SetAfterStartForTest(v *View, f func()) { v.afterStart = f }

// SetAfterFitForTest sets the hook called on the Fyne goroutine after the
// "Will it fit?" panel showed a prediction.
func SetAfterFitForTest(v *View, f func()) { v.fit.live.OnShown = f }
