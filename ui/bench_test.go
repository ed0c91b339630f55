package ui_test

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/ui"
)

// BenchmarkFirstFrame measures launch to first frame: building the whole
// main window (every view, the flag form from the catalog) and rendering
// it once with the test driver's software painter. Target: under 1 s.
func BenchmarkFirstFrame(b *testing.B) {
	b.ReportAllocs()
	a := test.NewTempApp(b)
	for b.Loop() {
		w := test.NewWindow(nil)
		ui.NewWithServices(a, w, testServices())
		if img := w.Canvas().Capture(); img.Bounds().Dx() == 0 {
			b.Fatal("empty first frame")
		}
		w.Close()
	}
}
