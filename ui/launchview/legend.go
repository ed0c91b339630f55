package launchview

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/predict"
)

// newLegend labels the memory bar: each part's colour as a swatch (drawn
// as the bar draws it, so it follows a theme switch and is no text to
// read), then its name and GiB, the items flowing onto as many lines as
// the width needs; then the sum, said against the card's memory (card)
// when it is more.
func newLegend(parts []predict.Part, card float64) (*fyne.Container, []string) {
	var items []fyne.CanvasObject
	var texts []string
	total := 0.0
	for _, pt := range parts {
		total += pt.GiB
		sw := newMemoryBar()
		sw.min = fyne.NewSquareSize(theme.TextSize() * 0.8)
		sw.set([]predict.Part{pt})
		text := fmt.Sprintf("%s %.2f GiB", pt.Name, pt.GiB)
		texts = append(texts, text)
		items = append(items, container.NewHBox(container.NewCenter(sw), widget.NewLabel(text)))
	}
	sum := fmt.Sprintf("(%.1f GiB in all)", total)
	if total > card+0.05 {
		sum = fmt.Sprintf("(%.1f GiB in all, more than the %.1f GiB there is)", total, card)
	}
	texts = append(texts, sum)
	items = append(items, widget.NewLabel(sum))
	return container.New(&flowLayout{}, items...), texts
}

// flowLayout places objects left to right at their minimum size, starting
// a new line where the next one would not fit. Its minimum height is that
// of the lines at the width it was last laid out at (as a wrapped label's).
type flowLayout struct{ width, height float32 }

// Layout places the objects.
func (f *flowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	f.width = size.Width
	f.height = f.place(objs, size.Width, true)
}

// place lays objs out in lines of width w (moving them when move) and
// returns the lines' height.
func (f *flowLayout) place(objs []fyne.CanvasObject, w float32, move bool) float32 {
	var x, y, line float32
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		s := o.MinSize()
		if x > 0 && x+s.Width > w {
			x, y, line = 0, y+line, 0
		}
		if move {
			o.Move(fyne.NewPos(x, y))
			o.Resize(s)
		}
		x += s.Width
		line = max(line, s.Height)
	}
	return y + line
}

// MinSize is as wide as the widest object and as tall as the lines at the
// last width.
func (f *flowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	return fyne.NewSize(w, f.place(objs, max(f.width, w), false))
}
