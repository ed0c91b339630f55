package runview

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// progressBar is the run's progress: a neutral track with the done part
// in the primary colour. Fyne's bar draws its track in the primary colour
// at half opacity, which in the light theme looks like a full bar at 0%.
type progressBar struct {
	widget.BaseWidget
	// Value is the fraction done, 0–1.
	Value float64
}

func newProgressBar() *progressBar {
	p := &progressBar{}
	p.ExtendBaseWidget(p)
	return p
}

// SetValue moves the bar.
func (p *progressBar) SetValue(v float64) {
	p.Value = min(1, max(0, v))
	p.Refresh()
}

// CreateRenderer draws the track and the done part.
func (p *progressBar) CreateRenderer() fyne.WidgetRenderer {
	r := &progressRenderer{p: p, track: canvas.NewRectangle(nil), done: canvas.NewRectangle(nil)}
	r.Refresh()
	return r
}

type progressRenderer struct {
	p           *progressBar
	track, done *canvas.Rectangle
}

func (r *progressRenderer) Layout(size fyne.Size) {
	r.track.Resize(size)
	r.done.Resize(fyne.NewSize(size.Width*float32(r.p.Value), size.Height))
}

func (r *progressRenderer) MinSize() fyne.Size {
	return fyne.NewSize(theme.TextSize()*4, theme.TextSize()+2*theme.InnerPadding()/2)
}

func (r *progressRenderer) Refresh() {
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

func (r *progressRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.track, r.done} }

func (r *progressRenderer) Destroy() {}
