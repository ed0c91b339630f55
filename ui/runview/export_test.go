package runview

// SetAfterPredictedForTest sets the hook called on the Fyne goroutine
// after the plan's predicted figures were shown.
func SetAfterPredictedForTest(v *View, f func()) { v.pred.live.OnShown = f }
