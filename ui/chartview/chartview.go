// Package chartview shows engine/report/chart's charts inside the app: a
// chart is drawn to PNG off the UI goroutine, at the canvas's scale and in
// the theme's light or dark palette, then swapped into a canvas.Image.
package chartview

import (
	"bytes"
	"image"
	"image/png"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Size a chart is drawn at, in Fyne units; the gallery scales it to the
// width it has (drawn at twice the pixels, so it stays sharp up to double
// size).
const (
	Width  = 720
	Height = 430
	// minWidth is the narrowest a chart is shown: two charts side by side
	// from 2 × minWidth on.
	minWidth = 560
	// drawScale is the pixel density charts are drawn at.
	drawScale = 2
)

// Gallery shows a set of charts of the same runs, one per kind.
type Gallery struct {
	box    *fyne.Container
	scroll *container.Scroll
	images map[chart.Kind]*canvas.Image
	kinds  []chart.Kind
	gen    int
	// loading is shown above the charts while they are drawn: drawing
	// six runs' charts takes seconds, and a blank area looked broken
	// (issue 41 minor 15).
	loading *fyne.Container
	content *fyne.Container
}

// LoadingText is what the gallery says while it draws.
const LoadingText = "Loading the charts…"

// NewGallery returns an empty gallery for the given chart kinds.
func NewGallery(kinds ...chart.Kind) *Gallery {
	grid := &fillGrid{}
	g := &Gallery{box: container.New(grid), images: map[chart.Kind]*canvas.Image{}, kinds: kinds}
	g.scroll = container.NewVScroll(g.box)
	bar := widget.NewProgressBarInfinite()
	g.loading = container.NewVBox(widget.NewLabel(LoadingText), bar)
	g.loading.Hide()
	g.content = container.NewBorder(g.loading, nil, nil, nil, g.scroll)
	grid.resized = func() { g.scroll.Refresh() }
	for _, k := range kinds {
		img := canvas.NewImageFromImage(image.NewNRGBA(image.Rect(0, 0, 1, 1)))
		img.FillMode = canvas.ImageFillContain
		img.ScaleMode = canvas.ImageScaleSmooth
		g.images[k] = img
		g.box.Add(img)
	}
	return g
}

// Content is the gallery's root: the charts in a vertical scroller, under
// the loading line while they are drawn.
func (g *Gallery) Content() fyne.CanvasObject { return g.content }

// Loading reports whether the gallery is drawing (and says so).
func (g *Gallery) Loading() bool { return g.loading.Visible() }

// ChartSize is the size each chart is shown at now.
func (g *Gallery) ChartSize() fyne.Size {
	if len(g.box.Objects) == 0 {
		return fyne.Size{}
	}
	return g.box.Objects[0].Size()
}

// Rendered reports how many charts currently hold a drawing.
func (g *Gallery) Rendered() int {
	n := 0
	for _, img := range g.images {
		if img.Image != nil && img.Image.Bounds().Dx() > 1 {
			n++
		}
	}
	return n
}

// Set draws the charts of runs (1 run, or 2–6 compared) in the background
// and shows them as they finish. done, when not nil, runs on the Fyne
// goroutine after the last one. A newer Set supersedes an older one.
func (g *Gallery) Set(runs []*rundoc.Run, done func()) {
	g.gen++
	gen := g.gen
	dark := IsDark()
	scale := float32(drawScale)
	if len(runs) == 0 {
		g.setLoading(false)
		for _, img := range g.images {
			img.Image = image.NewNRGBA(image.Rect(0, 0, 1, 1))
			img.Refresh()
		}
		if done != nil {
			done()
		}
		return
	}
	kinds := g.kinds
	g.setLoading(true)
	go func() {
		out := map[chart.Kind]image.Image{}
		for _, k := range kinds {
			out[k] = Draw(k, runs, dark, scale)
		}
		fyne.Do(func() {
			if gen != g.gen {
				return
			}
			g.setLoading(false)
			for k, im := range out {
				if im != nil {
					g.images[k].Image = im
					g.images[k].Refresh()
				}
			}
			if done != nil {
				done()
			}
		})
	}()
}

// setLoading shows or hides the loading line and lays the gallery out
// again: a hidden line keeps its room until the border is laid out anew.
func (g *Gallery) setLoading(on bool) {
	if on == g.loading.Visible() {
		return
	}
	if on {
		g.loading.Show()
	} else {
		g.loading.Hide()
	}
	g.content.Refresh()
}

// fillGrid lays charts out in as many columns as fit at minWidth, each as
// wide as its share of the width and as high as the chart's aspect ratio
// makes it: a fixed 720-unit grid left 45% of a 1280 window empty.
// MinSize follows the last width laid out, so a scroller around the
// gallery knows how tall the rows are at that width.
type fillGrid struct {
	width float32
	// resized is called after the width changed (the gallery refreshes
	// its scroller, which asks MinSize again).
	resized func()
}

// columns is the column count and the chart size at width w.
func (g *fillGrid) columns(w float32, n int) (cols int, size fyne.Size) {
	pad := theme.Padding()
	cols = max(1, min(n, int((w+pad)/(minWidth+pad))))
	cw := (w - pad*float32(cols-1)) / float32(cols)
	return cols, fyne.NewSize(cw, cw*Height/Width)
}

// Layout places the charts row by row.
func (g *fillGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	grew := g.width != size.Width
	g.width = size.Width
	cols, cell := g.columns(size.Width, len(objs))
	pad := theme.Padding()
	for i, o := range objs {
		col, row := i%cols, i/cols
		o.Move(fyne.NewPos(float32(col)*(cell.Width+pad), float32(row)*(cell.Height+pad)))
		o.Resize(cell)
	}
	if grew && g.resized != nil {
		g.resized()
	}
}

// MinSize is a column of minWidth before the first layout, then the rows
// the last width needs.
func (g *fillGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) == 0 {
		return fyne.NewSize(0, 0)
	}
	w := max(g.width, minWidth)
	cols, cell := g.columns(w, len(objs))
	rows := (len(objs) + cols - 1) / cols
	return fyne.NewSize(minWidth, float32(rows)*cell.Height+float32(rows-1)*theme.Padding())
}

// IsDark reports whether the app's theme is dark as drawn: the theme's
// background, since a theme chosen in View ▸ Theme overrides the system's
// variant, which Settings().ThemeVariant() still reports.
func IsDark() bool {
	if fyne.CurrentApp() == nil {
		return false
	}
	r, g, b, _ := theme.Color(theme.ColorNameBackground).RGBA()
	return 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b) < 0.5*0xffff
}

// Draw renders one chart to an image (nil when it could not be drawn; a
// chart without data is drawn as such by the chart package).
func Draw(k chart.Kind, runs []*rundoc.Run, dark bool, scale float32) image.Image {
	var buf bytes.Buffer
	if err := chart.Render(&buf, k, runs, chart.Options{Format: chart.PNG, Width: Width, Height: Height, Scale: float64(scale), Dark: dark}); err != nil {
		return nil
	}
	im, err := png.Decode(&buf)
	if err != nil {
		return nil
	}
	return im
}
