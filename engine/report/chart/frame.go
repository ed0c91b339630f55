package chart

import (
	"image/color"
	"math"

	xfont "golang.org/x/image/font"
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

// fallbackSlack is how much wider than Liberation Sans a viewer may set a
// chart's text. An SVG names Liberation Sans, and a machine without it
// substitutes another font: Chromium on Linux takes DejaVu Sans, 12–18%
// wider (25% for bold digits). SVG text is placed by where it starts, so a
// layout measured in Liberation alone let the colour bar's "total tok/s"
// run into its "0" and the y-axis figures into their tick marks.
const fallbackSlack = 1.2

// roomyText is plot's plain text handler measuring every text
// fallbackSlack times its Liberation width, so whatever is laid out after
// a text, and every fit to a width, leaves room for the wider setting. It
// places aligned text so the wider setting still ends where the layout
// expects: right-aligned text ends at its point in the wider font (a
// little short of it in Liberation); centred text is off centre by 5% of
// its width in either font rather than 10% in one. PNG and SVG share the
// layout, so the app shows what the report shows.
type roomyText struct{ text.Plain }

// roomy is the handler of every text the charts draw.
var roomy text.Handler = roomyText{text.Plain{Fonts: font.DefaultCache}}

// Box implements text.Handler with the width fallbackSlack wider.
func (h roomyText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	width, height, depth = h.Plain.Box(txt, fnt)
	return width * fallbackSlack, height, depth
}

// Draw implements text.Handler: it turns the alignment into an offset
// along the (possibly rotated) baseline and draws the text left-aligned
// from there. Texts of several lines (the charts draw none) keep plot's
// own placement.
func (h roomyText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	if len(h.Lines(txt)) == 1 && sty.XAlign != draw.XLeft {
		a := float64(sty.XAlign) // -1 right, -0.5 centre
		w, _, _ := h.Plain.Box(txt, sty.Font)
		off := a * (1 - (fallbackSlack-1)*a) * float64(w)
		sin, cos := math.Sincos(sty.Rotation)
		pt.X += vg.Length(off * cos)
		pt.Y += vg.Length(off * sin)
		sty.XAlign = draw.XLeft
	}
	h.Plain.Draw(c, txt, sty, pt)
}

func textStyle(size vg.Length, clr color.Color, bold bool) text.Style {
	f := sans
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{
		Color:   clr,
		Font:    font.From(f, size),
		Handler: roomy,
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

// Legend labels of the marks every chart draws the same way: a hollow
// marker for a cell whose requests queued, a bar for a 95% interval.
// Written once, so the lines charts and the Pareto chart key the same
// marker in the same words (they said "hollow marker: …" and "hollow: …").
const (
	queuedKey   = "hollow marker: Requests queued (server did not hold all N)"
	intervalKey = "bar: 95% interval"
)

// markerKeys are the legend entries for the marks a chart drew: the
// queued marker when some point queued, the interval bar when some point
// has one (both axes' bars with cross, as the Pareto chart draws them).
func markerKeys(th Theme, queued, ci, cross bool) []legendEntry {
	var out []legendEntry
	if queued {
		out = append(out, legendEntry{label: queuedKey, thumb: func(c *draw.Canvas, pt vg.Point) {
			drawMarker(c, shapeCircle, pt, 3.5, th.Muted, th.Background, true)
		}})
	}
	if ci {
		out = append(out, legendEntry{label: intervalKey, thumb: func(c *draw.Canvas, pt vg.Point) {
			st := draw.LineStyle{Color: th.Muted, Width: 1}
			c.StrokeLine2(st, pt.X, pt.Y-4, pt.X, pt.Y+4)
			if cross {
				c.StrokeLine2(st, pt.X-6, pt.Y, pt.X+6, pt.Y)
				return
			}
			c.StrokeLine2(st, pt.X-3, pt.Y-4, pt.X+3, pt.Y-4)
			c.StrokeLine2(st, pt.X-3, pt.Y+4, pt.X+3, pt.Y+4)
		}})
	}
	return out
}

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
