package launchview

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/predict"
)

// memoryBar draws a predicted memory split as one horizontal bar, each
// part as wide as its share of the card's memory, in the theme's colours
// (read again at every refresh, so a theme switch repaints it).
type memoryBar struct {
	widget.BaseWidget
	parts []predict.Part
	// min is its minimum size (a swatch of the legend is one small bar).
	min fyne.Size
}

func newMemoryBar() *memoryBar {
	b := &memoryBar{min: fyne.NewSize(120, 14)}
	b.ExtendBaseWidget(b)
	return b
}

// set shows parts.
func (b *memoryBar) set(parts []predict.Part) {
	b.parts = parts
	b.Refresh()
}

// partColor is the theme colour of a part of the split, the same in the
// bar and its legend.
func partColor(name string) fyne.ThemeColorName {
	switch name {
	case "weights":
		return theme.ColorNamePrimary
	case "activations":
		return theme.ColorNameWarning
	case "KV cache":
		return theme.ColorNameSuccess
	case "left to other programs":
		// The empty track's colour: memory vLLM does not take.
		return theme.ColorNameInputBackground
	}
	return theme.ColorNameDisabled
}

// CreateRenderer is Fyne's.
func (b *memoryBar) CreateRenderer() fyne.WidgetRenderer {
	r := &memoryBarRenderer{b: b}
	r.Refresh()
	return r
}

type memoryBarRenderer struct {
	b     *memoryBar
	rects []*canvas.Rectangle
	objs  []fyne.CanvasObject
}

func (r *memoryBarRenderer) Layout(size fyne.Size) {
	total := 0.0
	for _, p := range r.b.parts {
		total += max(p.GiB, 0)
	}
	x := float32(0)
	for i, rect := range r.rects {
		w := float32(0)
		if total > 0 && i < len(r.b.parts) {
			w = size.Width * float32(max(r.b.parts[i].GiB, 0)/total)
		}
		rect.Move(fyne.NewPos(x, 0))
		rect.Resize(fyne.NewSize(w, size.Height))
		x += w
	}
}

func (r *memoryBarRenderer) MinSize() fyne.Size { return r.b.min }

func (r *memoryBarRenderer) Refresh() {
	for len(r.rects) < len(r.b.parts) {
		r.rects = append(r.rects, canvas.NewRectangle(nil))
	}
	r.rects = r.rects[:len(r.b.parts)]
	r.objs = make([]fyne.CanvasObject, 0, len(r.rects))
	for i, rect := range r.rects {
		rect.FillColor = theme.Color(partColor(r.b.parts[i].Name))
		rect.Refresh()
		r.objs = append(r.objs, rect)
	}
	r.Layout(r.b.Size())
}

func (r *memoryBarRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *memoryBarRenderer) Destroy()                     {}
