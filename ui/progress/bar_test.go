package progress

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// The bar clamps to 0–1, and at 0 draws only its neutral track: Fyne's
// own bar looked full at 0% in the light theme.
func TestBarClampsAndShowsNothingDoneAtZero(t *testing.T) {
	test.NewTempApp(t)
	b := NewBar()
	r := test.WidgetRenderer(b).(*barRenderer)
	b.Resize(fyne.NewSize(200, 20))
	if !r.done.Hidden {
		t.Error("the done part is drawn at 0")
	}
	b.SetValue(1.5)
	if b.Value != 1 || r.done.Hidden || r.done.Size().Width != 200 {
		t.Errorf("at 1.5: value %v, done hidden %v, width %v; want 1, shown, 200", b.Value, r.done.Hidden, r.done.Size().Width)
	}
	b.SetValue(-1)
	if b.Value != 0 || !r.done.Hidden {
		t.Errorf("at -1: value %v, done hidden %v; want 0 and hidden", b.Value, r.done.Hidden)
	}
	b.SetValue(0.25)
	if w := r.done.Size().Width; w != 50 {
		t.Errorf("at 0.25 the done part is %v wide, want 50", w)
	}
}
