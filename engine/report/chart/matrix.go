package chart

import (
	"math"
	"strconv"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// drawMatrix draws the decode matrix as a heatmap: rows are contexts
// (smallest on top, as in the app's table), columns concurrencies, each
// cell coloured by total tok/s on one scale shared by all runs, with the
// figure and the median TTFT written in it; cells that did not run show
// their status. A comparison draws one panel per run on the same grid.
func drawMatrix(c draw.Canvas, runs []*rundoc.Run, th Theme) {
	c = drawHeader(c, th, "Decode matrix: total tok/s (colour) and median TTFT", subtitle(runs))
	contexts := contextsOf(runs)
	var conc []int
	max := 0.0
	for _, r := range runs {
		_, ns := r.DecodeAxes()
		conc = append(conc, ns...)
		for i := range r.Cells {
			if v, ok := metric(DecodeTotal, &r.Cells[i]); ok && r.Cells[i].Phase == rundoc.PhaseDecode {
				max = math.Max(max, v)
			}
		}
	}
	conc = rundoc.SortedUnique(conc)
	if len(contexts) == 0 || len(conc) == 0 {
		drawNoData(c, th, "the run has no decode cells")
		return
	}
	if max > 0 {
		c = drawColorBar(c, th, max)
	}
	w, h := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	cols := int(math.Round(math.Sqrt(float64(len(runs)) * float64(w/h) / 1.3)))
	cols = min(max1(cols), len(runs))
	rows := (len(runs) + cols - 1) / cols
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: pad, PadY: pad, PadLeft: pad, PadRight: pad, PadBottom: 2}
	labels := RunLabels(runs)
	for i, r := range runs {
		pc := tiles.At(c, i%cols, i/cols)
		if len(runs) > 1 {
			ls := aligned(textStyle(legendSize, th.Foreground, true), draw.XLeft, draw.YTop)
			pc.FillText(ls, vg.Point{X: pc.Min.X, Y: pc.Max.Y}, fit(ls, labels[i], pc.Max.X-pc.Min.X))
			pc.Max.Y -= ls.Height("Ag") + 4
		}
		drawGrid(pc, r, contexts, conc, max, th)
	}
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// drawGrid draws one run's matrix in c.
func drawGrid(c draw.Canvas, r *rundoc.Run, contexts, conc []int, max float64, th Theme) {
	axis := aligned(textStyle(tickSize, th.Foreground, false), draw.XRight, draw.YCenter)
	labelW := vg.Length(0)
	for _, ctx := range contexts {
		labelW = vg.Length(math.Max(float64(labelW), float64(axis.Width(rundoc.ContextLabel(ctx)))))
	}
	head := aligned(textStyle(tickSize, th.Muted, false), draw.XLeft, draw.YTop)
	top := c.Max.Y - head.Height("N") - 4
	c.FillText(head, vg.Point{X: c.Min.X, Y: c.Max.Y}, "C \\ N")
	left := c.Min.X + vg.Length(math.Max(float64(labelW), float64(head.Width("C \\ N")))) + 6
	cw := (c.Max.X - left) / vg.Length(len(conc))
	ch := (top - c.Min.Y) / vg.Length(len(contexts))
	colHead := aligned(textStyle(tickSize, th.Foreground, false), draw.XCenter, draw.YTop)
	for j, n := range conc {
		c.FillText(colHead, vg.Point{X: left + cw*(vg.Length(j)+0.5), Y: c.Max.Y}, strconv.Itoa(n))
	}
	index := r.Index()
	for i, ctx := range contexts {
		y0 := top - ch*vg.Length(i+1)
		c.FillText(axis, vg.Point{X: left - 6, Y: y0 + ch/2}, rundoc.ContextLabel(ctx))
		for j, n := range conc {
			cell := vg.Rectangle{
				Min: vg.Point{X: left + cw*vg.Length(j) + 1, Y: y0 + 1},
				Max: vg.Point{X: left + cw*vg.Length(j+1) - 1, Y: y0 + ch - 1},
			}
			drawCell(c, cell, index.Find(rundoc.PhaseDecode, ctx, n), max, th)
		}
	}
}

// shortStatus words a status to fit a small cell.
var shortStatus = map[rundoc.Status][]string{
	rundoc.StatusOverCapacity:  {"Over capacity", "Over cap."},
	rundoc.StatusExceedsLength: {"Exceeds model length", "Too long"},
	rundoc.StatusFailed:        {"Failed"},
	rundoc.StatusCancelled:     {"Cancelled", "Cancel."},
	rundoc.StatusUnreliable:    {"Unreliable", "Unrel."},
}

// drawCell paints one matrix cell: the throughput colour and figures of a
// cell that ran, or the status of one that did not. A cell missing from
// the run (not measured yet) stays blank.
func drawCell(c draw.Canvas, rect vg.Rectangle, cell *rundoc.Cell, max float64, th Theme) {
	if rect.Max.X <= rect.Min.X || rect.Max.Y <= rect.Min.Y {
		return
	}
	w, h := rect.Max.X-rect.Min.X, rect.Max.Y-rect.Min.Y
	mid := vg.Point{X: (rect.Min.X + rect.Max.X) / 2, Y: (rect.Min.Y + rect.Max.Y) / 2}
	if cell == nil {
		c.SetColor(th.Grid)
		c.Fill(rect.Path())
		return
	}
	v, ok := metric(DecodeTotal, cell)
	if !ok {
		c.SetColor(th.Empty)
		c.Fill(rect.Path())
		words := shortStatus[cell.Status]
		if len(words) == 0 {
			words = []string{string(cell.Status)}
		}
		sty := aligned(textStyle(fontFor(h, 0.3, 8), th.Muted, false), draw.XCenter, draw.YCenter)
		// An Unreliable cell says why on the cell, as every matrix does
		// (METHOD.md: Status): its first reason's head on a second line.
		at := mid
		head := ""
		if cell.Status == rundoc.StatusUnreliable && h >= 20 {
			if head = rundoc.UnreliableHead(cell); head != "" {
				at = vg.Point{X: mid.X, Y: mid.Y + h*0.12}
				small := shrink(aligned(textStyle(fontFor(h, 0.24, 7), th.Muted, false), draw.XCenter, draw.YCenter), head, w-4)
				c.FillText(small, vg.Point{X: mid.X, Y: mid.Y - h*0.16}, head)
			}
		}
		for _, s := range words {
			if sty.Width(s) <= w-4 {
				c.FillText(sty, at, s)
				return
			}
		}
		c.FillText(shrink(sty, words[len(words)-1], w-4), at, words[len(words)-1])
		return
	}
	t := v / max
	c.SetColor(Ramp(t))
	c.Fill(rect.Path())
	fg := RampText(t)
	// A chart cell is small: the figure (the title names the unit) and the
	// TTFT, with the registry's decimals.
	// The figure with its ± (METHOD.md: every figure carries it).
	value, second := rundoc.FigTotalTokS.TextCI(cell), rundoc.FigTTFT.WithUnit(cell)
	if cell.Status == rundoc.StatusQueued {
		second = "queued"
	}
	big := shrink(aligned(textStyle(fontFor(h, 0.34, 10), fg, true), draw.XCenter, draw.YCenter), value, w-4)
	if second == "" || h < 20 {
		c.FillText(big, mid, value)
		return
	}
	small := shrink(aligned(textStyle(fontFor(h, 0.26, 8), fg, false), draw.XCenter, draw.YCenter), second, w-4)
	c.FillText(big, vg.Point{X: mid.X, Y: mid.Y + h*0.14}, value)
	c.FillText(small, vg.Point{X: mid.X, Y: mid.Y - h*0.2}, second)
}

// fontFor sizes text to a share of the cell height, capped.
func fontFor(h vg.Length, share float64, cap vg.Length) vg.Length {
	return vg.Length(math.Min(float64(cap), math.Max(4, float64(h)*share)))
}

// shrink lowers the font size until s fits width (down to 4 pt).
func shrink(sty text.Style, s string, width vg.Length) text.Style {
	for sty.Font.Size > 4 && sty.Width(s) > width {
		sty.Font.Size -= 0.5
	}
	return sty
}

// drawColorBar draws the throughput scale at the bottom of c and returns
// the canvas above it.
func drawColorBar(c draw.Canvas, th Theme, max float64) draw.Canvas {
	sty := aligned(textStyle(legendSize, th.Foreground, false), draw.XLeft, draw.YCenter)
	label := "total tok/s"
	y := c.Min.Y + pad + 6
	x := c.Min.X + pad
	c.FillText(sty, vg.Point{X: x, Y: y}, label)
	x += sty.Width(label) + 8
	c.FillText(sty, vg.Point{X: x, Y: y}, "0")
	x += sty.Width("0") + 4
	maxLabel := rundoc.FigTotalTokS.Format(max)
	barW := vg.Length(math.Min(240, float64(c.Max.X-x-sty.Width(maxLabel)-2*pad-8)))
	const steps = 48
	for i := 0; i < steps; i++ {
		r := vg.Rectangle{
			Min: vg.Point{X: x + barW*vg.Length(i)/steps, Y: y - 5},
			Max: vg.Point{X: x + barW*vg.Length(i+1)/steps + 0.3, Y: y + 5},
		}
		c.SetColor(Ramp((float64(i) + 0.5) / steps))
		c.Fill(r.Path())
	}
	c.FillText(sty, vg.Point{X: x + barW + 8, Y: y}, maxLabel)
	c.Min.Y = y + 6 + pad
	return c
}
