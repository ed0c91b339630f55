// Package progress is the progress bar of the Run and Tune views: a
// neutral track with the done part in the primary colour. Fyne's own bar
// draws its track in the primary colour at half opacity, which in the light
// theme looks like a full bar at 0%.
package progress

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Bar shows a fraction done.
type Bar struct {
	widget.BaseWidget
	// Value is the fraction done, 0–1.
	Value float64
}

// NewBar returns a bar at 0.
func NewBar() *Bar {
	p := &Bar{}
	p.ExtendBaseWidget(p)
	return p
}

// SetValue moves the bar.
func (p *Bar) SetValue(v float64) {
	p.Value = min(1, max(0, v))
	p.Refresh()
}

// CreateRenderer draws the track and the done part.
func (p *Bar) CreateRenderer() fyne.WidgetRenderer {
	r := &barRenderer{p: p, track: canvas.NewRectangle(nil), done: canvas.NewRectangle(nil)}
	r.Refresh()
	return r
}

type barRenderer struct {
	p           *Bar
	track, done *canvas.Rectangle
}

func (r *barRenderer) Layout(size fyne.Size) {
	r.track.Resize(size)
	r.done.Resize(fyne.NewSize(size.Width*float32(r.p.Value), size.Height))
}

func (r *barRenderer) MinSize() fyne.Size {
	return fyne.NewSize(theme.TextSize()*4, theme.TextSize()+2*theme.InnerPadding()/2)
}

func (r *barRenderer) Refresh() {
	r.track.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.track.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	r.track.StrokeWidth = 1
	r.track.CornerRadius = theme.InputRadiusSize()
	r.done.FillColor = theme.Color(theme.ColorNamePrimary)
	r.done.CornerRadius = theme.InputRadiusSize()
	r.done.Hidden = r.p.Value <= 0
	r.Layout(r.p.Size())
	r.track.Refresh()
	r.done.Refresh()
}

func (r *barRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.track, r.done} }

func (r *barRenderer) Destroy() {}
