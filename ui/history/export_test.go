package history

import "fyne.io/fyne/v2"

// SetSettledForTest sets the hook called once an import or a load of the
// selected runs has shown its outcome, so a test reads the dialog after
// it is drawn (the test driver runs fyne.Do on the calling goroutine).
func SetSettledForTest(v *View, f func()) { v.settled = f }

// EmptyLabelForTest is the empty table's sentence.
func EmptyLabelForTest(v *View) fyne.CanvasObject { return v.empty }

// TableForTest is the runs table.
func TableForTest(v *View) fyne.CanvasObject { return v.table }
