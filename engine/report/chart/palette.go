package chart

import "image/color"

// Theme holds the colours of one palette. Series colours come from the
// Okabe–Ito set (Okabe & Ito, "Color Universal Design", 2008), which stays
// distinguishable under the common forms of colour blindness; the order
// puts the most distinct hues first and leaves out the one that vanishes
// on the background (yellow on white, black on dark).
type Theme struct {
	Background color.Color
	Foreground color.Color // text, axes
	Muted      color.Color // secondary text, context markers in comparisons
	Grid       color.Color
	// Empty fills matrix cells that produced no figures.
	Empty color.Color
	// Series colours, in order of use.
	Series []color.Color
}

func rgb(hex uint32) color.NRGBA {
	return color.NRGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

// Light is the palette for light backgrounds.
var Light = Theme{
	Background: rgb(0xffffff),
	Foreground: rgb(0x1f1f1f),
	Muted:      rgb(0x5f5f5f),
	Grid:       rgb(0xe3e3e3),
	Empty:      rgb(0xececec),
	Series: []color.Color{
		rgb(0x0072B2), // blue
		rgb(0xD55E00), // vermillion
		rgb(0x009E73), // bluish green
		rgb(0xCC79A7), // reddish purple
		rgb(0xE69F00), // orange
		rgb(0x56B4E9), // sky blue
		rgb(0x000000), // black
	},
}

// Dark is the palette for dark backgrounds.
var Dark = Theme{
	Background: rgb(0x1e1e1e),
	Foreground: rgb(0xe8e8e8),
	Muted:      rgb(0xa8a8a8),
	Grid:       rgb(0x3a3a3a),
	Empty:      rgb(0x333333),
	Series: []color.Color{
		rgb(0x56B4E9), // sky blue
		rgb(0xE69F00), // orange
		rgb(0x009E73), // bluish green
		rgb(0xCC79A7), // reddish purple
		rgb(0xF0E442), // yellow
		rgb(0xD55E00), // vermillion
		rgb(0xffffff), // white
	},
}

// ThemeFor returns the dark or the light palette.
func ThemeFor(dark bool) Theme {
	if dark {
		return Dark
	}
	return Light
}

// SeriesColor returns the i-th series colour, cycling when there are more
// series than colours (the dash and the marker still tell them apart).
func (t Theme) SeriesColor(i int) color.Color { return t.Series[i%len(t.Series)] }

// viridis holds nine evenly spaced stops of the viridis colour map, which is
// perceptually uniform and readable with colour blindness and in grey.
var viridis = [...]uint32{
	0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
	0x28ae80, 0x5ec962, 0xaddc30, 0xfde725,
}

// Ramp maps t in [0, 1] onto the viridis colour map by linear interpolation
// between its stops; values outside are clamped.
func Ramp(t float64) color.NRGBA {
	if !(t > 0) { // also catches NaN
		t = 0
	}
	if t > 1 {
		t = 1
	}
	pos := t * float64(len(viridis)-1)
	i := int(pos)
	if i >= len(viridis)-1 {
		return rgb(viridis[len(viridis)-1])
	}
	f := pos - float64(i)
	a, b := rgb(viridis[i]), rgb(viridis[i+1])
	mix := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*f + 0.5) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 0xff}
}

// RampText returns black or white, whichever reads better on Ramp(t): the
// dark half of viridis takes white text.
func RampText(t float64) color.Color {
	if t < 0.6 {
		return rgb(0xffffff)
	}
	return rgb(0x111111)
}
