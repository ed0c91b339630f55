package runview

import (
	"image"
	"image/color"
	"math"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// sparkline is a small line chart of recent telemetry drawn into a raster
// at the canvas's pixel size, so it stays sharp on HiDPI screens.
type sparkline struct {
	mu     sync.Mutex
	values []float64
	raster *canvas.Raster
}

func newSparkline() *sparkline {
	s := &sparkline{}
	s.raster = canvas.NewRaster(s.draw)
	s.raster.SetMinSize(fyne.NewSize(140, 28))
	return s
}

func (s *sparkline) set(v []float64) {
	s.mu.Lock()
	s.values = v
	s.mu.Unlock()
	s.raster.Refresh()
}

// draw scales the values between their min and max (a flat series sits in
// the middle) and joins consecutive points with straight segments.
func (s *sparkline) draw(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	s.mu.Lock()
	vs := s.values
	s.mu.Unlock()
	if len(vs) < 2 || w < 2 || h < 2 {
		return img
	}
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	y := func(v float64) float64 {
		if hi == lo {
			return float64(h) / 2
		}
		return float64(h-1) - (v-lo)/(hi-lo)*float64(h-1)
	}
	c := color.NRGBAModel.Convert(theme.Color(theme.ColorNamePrimary)).(color.NRGBA)
	step := float64(w-1) / float64(len(vs)-1)
	for i := 1; i < len(vs); i++ {
		line(img, float64(i-1)*step, y(vs[i-1]), float64(i)*step, y(vs[i]), c)
	}
	return img
}

// line plots a segment by sampling it at sub-pixel steps: simple, and fast
// enough for a few hundred points.
func line(img *image.NRGBA, x0, y0, x1, y1 float64, c color.NRGBA) {
	n := int(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))*2) + 1
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		x, y := int(math.Round(x0+t*(x1-x0))), int(math.Round(y0+t*(y1-y0)))
		img.SetNRGBA(x, y, c)
		img.SetNRGBA(x, y+1, c)
	}
}
