package chart

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Marker shapes, so a context (or a run) stays identifiable without colour.
const (
	shapeCircle = iota
	shapeSquare
	shapeTriangle
	shapeDiamond
	shapeTriangleDown
	shapeHexagon
	shapeCount
)

// drawMarker draws a marker of the given shape centred at pt. A hollow
// marker (a cell whose requests queued) is the shape with its middle in the
// background colour.
func drawMarker(c *draw.Canvas, shape int, pt vg.Point, r vg.Length, fill, bg color.Color, hollow bool) {
	fillShape(c, shape, pt, r, fill)
	if hollow {
		fillShape(c, shape, pt, r*0.5, bg)
	}
}

func fillShape(c *draw.Canvas, shape int, pt vg.Point, r vg.Length, clr color.Color) {
	c.SetColor(clr) // the glyph drawers leave colour to the caller
	if shape%shapeCount == shapeCircle {
		draw.CircleGlyph{}.DrawGlyph(c, draw.GlyphStyle{Color: clr, Radius: r}, pt)
		return
	}
	var sides int
	var rot float64 // radians; 0 puts a vertex at the top
	scale := 1.0
	switch shape % shapeCount {
	case shapeSquare:
		sides, rot, scale = 4, math.Pi/4, 0.95
	case shapeTriangle:
		sides, scale = 3, 1.2
	case shapeDiamond:
		sides, scale = 4, 1.15
	case shapeTriangleDown:
		sides, rot, scale = 3, math.Pi, 1.2
	case shapeHexagon:
		sides, scale = 6, 1.05
	}
	var p vg.Path
	for i := 0; i < sides; i++ {
		a := rot + 2*math.Pi*float64(i)/float64(sides)
		q := vg.Point{X: pt.X + vg.Length(math.Sin(a)*scale)*r, Y: pt.Y + vg.Length(math.Cos(a)*scale)*r}
		if i == 0 {
			p.Move(q)
		} else {
			p.Line(q)
		}
	}
	p.Close()
	c.Fill(p)
}
