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

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Size of a chart in the app, in Fyne units.
const (
	Width  = 720
	Height = 430
)

// Gallery shows a set of charts of the same runs, one per kind.
type Gallery struct {
	box    *fyne.Container
	images map[chart.Kind]*canvas.Image
	kinds  []chart.Kind
	gen    int
}

// NewGallery returns an empty gallery for the given chart kinds.
func NewGallery(kinds ...chart.Kind) *Gallery {
	g := &Gallery{box: container.NewGridWrap(fyne.NewSize(Width, Height)), images: map[chart.Kind]*canvas.Image{}, kinds: kinds}
	for _, k := range kinds {
		img := canvas.NewImageFromImage(image.NewNRGBA(image.Rect(0, 0, 1, 1)))
		img.FillMode = canvas.ImageFillContain
		img.ScaleMode = canvas.ImageScaleSmooth
		g.images[k] = img
		g.box.Add(img)
	}
	return g
}

// Content is the gallery's root (wrap it in a scroll container).
func (g *Gallery) Content() fyne.CanvasObject { return g.box }

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
	dark := fyne.CurrentApp() != nil && fyne.CurrentApp().Settings().ThemeVariant() == theme.VariantDark
	scale := float32(1)
	if len(runs) == 0 {
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
	go func() {
		out := map[chart.Kind]image.Image{}
		for _, k := range kinds {
			out[k] = Draw(k, runs, dark, scale)
		}
		fyne.Do(func() {
			if gen != g.gen {
				return
			}
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
