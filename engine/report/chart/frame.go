package chart

import (
	"image/color"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Text sizes in points. Charts are read at 600–1200 px, on screens and in
// reports, so sizes are fixed rather than scaled with the canvas.
const (
	titleSize  = 12
	labelSize  = 10
	tickSize   = 9
	legendSize = 9
	pad        = vg.Length(8)
)

// sans is Liberation Sans, which plot embeds and which has Arial's metrics,
// so an SVG viewed without it (falling back to Arial or Helvetica) keeps
// its layout.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func textStyle(size vg.Length, clr color.Color, bold bool) text.Style {
	f := sans
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{
		Color:   clr,
		Font:    font.From(f, size),
		Handler: plot.DefaultTextHandler,
	}
}

func aligned(s text.Style, x draw.XAlignment, y draw.YAlignment) text.Style {
	s.XAlign, s.YAlign = x, y
	return s
}

// fit shortens s with an ellipsis until it is at most width wide.
func fit(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := string(r) + "…"; sty.Width(t) <= width {
			return t
		}
	}
	return "…"
}

// drawHeader writes the title and an optional subtitle at the top left and
// returns the canvas below them.
func drawHeader(c draw.Canvas, th Theme, title, subtitle string) draw.Canvas {
	width := c.Max.X - c.Min.X - 2*pad
	y := c.Max.Y - pad
	ts := aligned(textStyle(titleSize, th.Foreground, true), draw.XLeft, draw.YTop)
	c.FillText(ts, vg.Point{X: c.Min.X + pad, Y: y}, fit(ts, title, width))
	y -= ts.Height(title) + 2
	if subtitle != "" {
		ss := aligned(textStyle(legendSize, th.Muted, false), draw.XLeft, draw.YTop)
		c.FillText(ss, vg.Point{X: c.Min.X + pad, Y: y}, fit(ss, subtitle, width))
		y -= ss.Height(subtitle) + 2
	}
	c.Max.Y = y - pad/2
	return c
}

// legendEntry is one key of a legend: a thumbnail drawn in a box of
// thumbW×rowH and its label.
type legendEntry struct {
	label string
	thumb func(c *draw.Canvas, center vg.Point)
}

const thumbW = vg.Length(22)

// drawLegend lays entries out below the chart: rows of entries that wrap
// when the line is full, or one entry per line when perLine is set (for
// long run labels). It returns the canvas above the legend.
func drawLegend(c draw.Canvas, th Theme, groups [][]legendEntry, perLine []bool) draw.Canvas {
	sty := aligned(textStyle(legendSize, th.Foreground, false), draw.XLeft, draw.YCenter)
	rowH := sty.Height("Ag") + 4
	left, right := c.Min.X+pad, c.Max.X-pad
	type placed struct {
		e    legendEntry
		x    vg.Length
		row  int
		text string
	}
	var items []placed
	row := 0
	for g, group := range groups {
		if len(group) == 0 {
			continue
		}
		x := left
		for i, e := range group {
			avail := right - x - thumbW - 4
			w := thumbW + 4 + sty.Width(e.label) + 12
			if perLine[g] && i > 0 || (x > left && x+w > right) {
				row++
				x = left
				avail = right - x - thumbW - 4
			}
			items = append(items, placed{e: e, x: x, row: row, text: fit(sty, e.label, avail)})
			x += w
		}
		row++
	}
	if row == 0 {
		return c
	}
	top := c.Min.Y + pad + vg.Length(row)*rowH
	for _, it := range items {
		cy := top - vg.Length(it.row)*rowH - rowH/2
		if it.e.thumb != nil {
			it.e.thumb(&c, vg.Point{X: it.x + thumbW/2, Y: cy})
		}
		c.FillText(sty, vg.Point{X: it.x + thumbW + 4, Y: cy}, it.text)
	}
	c.Min.Y = top + pad/2
	return c
}

// drawNoData draws the "Not enough data" state in the middle of c with a
// line saying what is missing.
func drawNoData(c draw.Canvas, th Theme, why string) {
	c.SetColor(th.Empty)
	r := c.Rectangle
	inner := vg.Rectangle{Min: vg.Point{X: r.Min.X + pad, Y: r.Min.Y + pad}, Max: vg.Point{X: r.Max.X - pad, Y: r.Max.Y - pad}}
	if inner.Max.X > inner.Min.X && inner.Max.Y > inner.Min.Y {
		c.Fill(inner.Path())
	}
	mid := c.Center()
	big := aligned(textStyle(titleSize, th.Foreground, true), draw.XCenter, draw.YCenter)
	c.FillText(big, vg.Point{X: mid.X, Y: mid.Y + 9}, "Not enough data")
	small := aligned(textStyle(legendSize, th.Muted, false), draw.XCenter, draw.YCenter)
	c.FillText(small, vg.Point{X: mid.X, Y: mid.Y - 9}, fit(small, why, r.Max.X-r.Min.X-4*pad))
}
