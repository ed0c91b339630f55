package results

// SetAfterPredictedForTest sets the hook called on the Fyne goroutine
// after a cell's predicted figure was shown.
func SetAfterPredictedForTest(v *View, f func()) { v.predLive.OnShown = f }
