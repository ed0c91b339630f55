package matrix

import (
	"image/color"

	"github.com/rigbench/rigbench/engine/report/chart"
)

// Shade returns the fill of a cell measuring v tok/s in a matrix whose
// largest measured value is hi, and the colour its labels read in. It is the
// exported charts' own mapping, t = v / hi onto viridis (dark purple for the
// slowest, yellow for the fastest, chart.Ramp and chart.RampText), so a run
// looks the same in the app as in its PNG, SVG or HTML report. A degenerate
// range (hi ≤ 0) gives the middle of the scale.
func Shade(v, hi float64) (fill color.NRGBA, text color.Color) {
	t := 0.5
	if hi > 0 {
		t = v / hi
	}
	return chart.Ramp(t), chart.RampText(t)
}

// statusFill is the fill of a cell without figures (over capacity, too
// long, failed): grey, translucent so it reads on light and dark themes
// alike, and dark enough to tell from a cell still to run.
var statusFill = color.NRGBA{0x80, 0x80, 0x80, 0x66}

// pendingFill marks a planned cell that has not run yet: no fill, only
// pendingStroke's outline. A faint grey fill was nearly the status grey
// on a light background ("will run" looked like "Over capacity").
var pendingFill = color.NRGBA{0x80, 0x80, 0x80, 0x00}

// pendingStroke outlines a cell still to run.
var pendingStroke = color.NRGBA{0x80, 0x80, 0x80, 0xC0}

// runningFill marks the cell being measured now.
var runningFill = color.NRGBA{0x3f, 0x8f, 0xff, 0x60}
