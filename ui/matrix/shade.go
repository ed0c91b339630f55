package matrix

import (
	"image/color"
	"math"
)

// ramp is a colour-blind-safe sequential scale (viridis, light end first,
// trimmed so black text stays readable on every stop). Throughput maps onto
// it linearly in log space, because tok/s across a matrix spans two orders
// of magnitude and a linear scale would paint every small-N cell the same.
var ramp = []color.NRGBA{
	{0xfd, 0xe7, 0x25, 0xff},
	{0xb5, 0xde, 0x2b, 0xff},
	{0x6e, 0xce, 0x58, 0xff},
	{0x35, 0xb7, 0x79, 0xff},
	{0x1f, 0x9e, 0x89, 0xff},
	{0x26, 0x82, 0x8e, 0xff},
}

// Shade returns the fill of a cell measuring v tok/s in a matrix whose
// smallest and largest measured values are lo and hi:
// t = (ln v − ln lo) / (ln hi − ln lo), then linear interpolation between
// the two ramp stops around t. Degenerate ranges give the middle stop.
func Shade(v, lo, hi float64) color.NRGBA {
	if v <= 0 || lo <= 0 || hi <= lo {
		return ramp[len(ramp)/2]
	}
	t := (math.Log(v) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
	t = math.Max(0, math.Min(1, t))
	pos := t * float64(len(ramp)-1)
	i := int(pos)
	if i >= len(ramp)-1 {
		return ramp[len(ramp)-1]
	}
	f := pos - float64(i)
	a, b := ramp[i], ramp[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// statusFill is the fill of a cell without figures: grey, translucent so it
// reads on light and dark themes alike.
var statusFill = color.NRGBA{0x80, 0x80, 0x80, 0x40}

// pendingFill marks a planned cell that has not run yet.
var pendingFill = color.NRGBA{0x80, 0x80, 0x80, 0x18}

// runningFill marks the cell being measured now.
var runningFill = color.NRGBA{0x3f, 0x8f, 0xff, 0x60}
