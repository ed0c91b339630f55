package chart

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Pareto is the trade-off chart: total tok/s (the server's throughput)
// against per-request tok/s (what one user sees), one point per decode
// cell of each run or Tune variant at one context, with both 95% intervals
// and the Pareto frontier marked. It is the chart `vllm bench sweep
// plot_pareto` and AIPerf draw. It is not among Kinds (a single run's
// report keeps its charts); comparisons and sweeps draw it.
const Pareto Kind = "pareto"

// ParetoPoint is one decode cell on the trade-off chart.
type ParetoPoint struct {
	// Concurrency N labels the point.
	Concurrency int
	// Total and PerRequest are total and per-request tok/s, each with its
	// 95% half-width (0: none).
	Total, TotalCI, PerRequest, PerRequestCI float64
	// Queued marks a cell whose requests queued: drawn hollow, as on the
	// other charts.
	Queued bool
}

// ParetoSeries is one run or variant: its legend label and its points.
type ParetoSeries struct {
	Label string
	// Short names the series in FrontierText (a run's letter, beside a
	// list that describes the runs); Label when empty.
	Short  string
	Points []ParetoPoint
}

// ParetoRef names a point: series S, point P of it.
type ParetoRef struct{ S, P int }

// Frontier returns the points no other point beats on both axes: a point
// is dominated when another has at least its total and its per-request
// tok/s and more of one. Both figures are better higher, so the frontier
// runs from the fastest single stream to the highest throughput; every
// point off it is a setting that gives up one figure for nothing. The
// frontier is taken on the means: a point within its ± of the frontier
// may be as good (the chart's bars show that). The result is ordered by
// per-request tok/s, descending (total tok/s ascending), as the line is
// drawn.
func Frontier(series []ParetoSeries) []ParetoRef {
	var all []ParetoRef
	for si, s := range series {
		for pi := range s.Points {
			all = append(all, ParetoRef{si, pi})
		}
	}
	at := func(r ParetoRef) ParetoPoint { return series[r.S].Points[r.P] }
	var out []ParetoRef
	for _, r := range all {
		p := at(r)
		dominated := false
		for _, o := range all {
			q := at(o)
			if q.Total >= p.Total && q.PerRequest >= p.PerRequest && (q.Total > p.Total || q.PerRequest > p.PerRequest) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b ParetoRef) int {
		return cmp.Or(cmp.Compare(at(b).PerRequest, at(a).PerRequest), cmp.Compare(at(a).Total, at(b).Total))
	})
	return out
}

// ParetoContext is the context a comparison's trade-off chart shows: the
// one with the most decode cells that produced both figures, across the
// runs (the shortest among equals), and whether any has one.
func ParetoContext(runs []*rundoc.Run) (int, bool) {
	count := map[int]int{}
	for _, r := range runs {
		for i := range r.Cells {
			if c := &r.Cells[i]; c.Phase == rundoc.PhaseDecode && paretoCell(c) {
				count[c.Context]++
			}
		}
	}
	return BusiestContext(count)
}

// BusiestContext is the context with the most points, given the points per
// context (the shortest among equals), and whether any has one: the rule
// both the comparison's and the sweep's trade-off charts pick theirs by.
func BusiestContext(count map[int]int) (int, bool) {
	best, n := 0, 0
	for _, ctx := range slices.Sorted(maps.Keys(count)) {
		if count[ctx] > n {
			best, n = ctx, count[ctx]
		}
	}
	return best, n > 0
}

// paretoCell says whether a decode cell has both figures of the chart.
func paretoCell(c *rundoc.Cell) bool {
	return c.Status.Ran() && c.TotalTokS > 0 && c.PerRequestTokS > 0
}

// ParetoOf is each run's decode cells at context as chart series, labelled
// as every comparison labels its runs ("A: …").
func ParetoOf(runs []*rundoc.Run, context int) []ParetoSeries {
	labels := RunLabels(runs)
	out := make([]ParetoSeries, len(runs))
	for i, r := range runs {
		out[i].Label, out[i].Short = labels[i], Letter(i)
		_, conc := r.DecodeAxes()
		index := r.Index()
		for _, n := range conc {
			if c := index.Find(rundoc.PhaseDecode, context, n); c != nil && paretoCell(c) {
				out[i].Points = append(out[i].Points, ParetoPoint{Concurrency: n, Total: c.TotalTokS, TotalCI: c.TotalTokSCI95,
					PerRequest: c.PerRequestTokS, PerRequestCI: c.PerRequestTokSCI95, Queued: c.Status == rundoc.StatusQueued})
			}
		}
	}
	return out
}

// RenderPareto draws the trade-off chart of series (runs or variants) with
// the given title and subtitle, as PNG or SVG; series without points keep
// their legend entry, and no points at all draw "Not enough data".
func RenderPareto(w io.Writer, title, subtitle string, series []ParetoSeries, opts Options) error {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return err
	}
	return paint(w, opts, func(c draw.Canvas, th Theme) {
		c.SetColor(th.Background)
		c.Fill(c.Rectangle.Path())
		drawPareto(c, title, subtitle, series, th)
	})
}

// paretoTitle is the chart's title at a context.
func paretoTitle(context int) string {
	return "Trade-off: total against per-request tok/s at context " + rundoc.ContextLabel(context)
}

// drawParetoRuns is Render's Pareto: the runs' cells at ParetoContext.
func drawParetoRuns(c draw.Canvas, runs []*rundoc.Run, th Theme) {
	ctx, _ := ParetoContext(runs)
	drawPareto(c, paretoTitle(ctx), subtitle(runs), ParetoOf(runs, ctx), th)
}

func drawPareto(c draw.Canvas, title, sub string, series []ParetoSeries, th Theme) {
	c = drawHeader(c, th, title, sub)
	front := Frontier(series)
	var xs, ys []float64
	queued, ci := false, false
	for _, s := range series {
		for _, p := range s.Points {
			xs = append(xs, p.PerRequest+p.PerRequestCI)
			ys = append(ys, p.Total+p.TotalCI)
			queued = queued || p.Queued
			ci = ci || p.TotalCI > 0 || p.PerRequestCI > 0
		}
	}
	var first, second []legendEntry
	for i, s := range series {
		clr, shape := th.SeriesColor(i), i%shapeCount
		first = append(first, legendEntry{label: s.Label, thumb: func(c *draw.Canvas, pt vg.Point) {
			drawMarker(c, shape, pt, 3.5, clr, th.Background, false)
		}})
	}
	if len(front) > 0 {
		second = append(second, legendEntry{label: "line: Pareto frontier (nothing beats these on both)", thumb: func(c *draw.Canvas, pt vg.Point) {
			c.StrokeLine2(frontierStyle(th), pt.X-thumbW/2, pt.Y, pt.X+thumbW/2, pt.Y)
		}})
	}
	second = append(second, markerKeys(th, queued, ci, true)...)
	c = drawLegend(c, th, [][]legendEntry{first, second}, []bool{len(series) > 3, false})
	if len(xs) == 0 {
		drawNoData(c, th, "no decode cell produced both total and per-request tok/s")
		return
	}
	p := newPlot(th)
	p.X.Label.Text = rundoc.FigPerRequestTokS.Label + " (one stream; better →)"
	p.Y.Label.Text = rundoc.FigTotalTokS.Label + " (all streams; better ↑)"
	xTop, xTicks := linearAxis(slices.Max(xs))
	yTop, yTicks := linearAxis(slices.Max(ys))
	p.X.Min, p.X.Max, p.X.Tick.Marker = 0, xTop, xTicks
	p.Y.Min, p.Y.Max, p.Y.Tick.Marker = 0, yTop, yTicks
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = th.Grid, th.Grid
	p.Add(grid)
	p.Add(&paretoPlotter{series: series, front: front, th: th})
	p.Draw(draw.Crop(c, pad, -pad, 0, 0))
}

// frontierStyle is the frontier's line: thick, in the text colour, under
// the markers.
func frontierStyle(th Theme) draw.LineStyle {
	return draw.LineStyle{Color: th.Foreground, Width: 2.5, Dashes: []vg.Length{5, 3}}
}

// paretoPlotter draws the frontier line, then each point with its two
// bars, marker and concurrency label.
type paretoPlotter struct {
	series []ParetoSeries
	front  []ParetoRef
	th     Theme
}

var _ plot.Plotter = (*paretoPlotter)(nil)

// Plot implements plot.Plotter.
func (pp *paretoPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	at := func(r ParetoRef) ParetoPoint { return pp.series[r.S].Points[r.P] }
	if len(pp.front) > 1 {
		pts := make([]vg.Point, len(pp.front))
		for i, r := range pp.front {
			pts[i] = vg.Point{X: trX(at(r).PerRequest), Y: trY(at(r).Total)}
		}
		c.StrokeLines(frontierStyle(pp.th), c.ClipLinesXY(pts)...)
	}
	onFront := map[ParetoRef]bool{}
	for _, r := range pp.front {
		onFront[r] = true
	}
	label := aligned(textStyle(tickSize, pp.th.Muted, false), draw.XLeft, draw.YBottom)
	for si, s := range pp.series {
		clr := pp.th.SeriesColor(si)
		bar := draw.LineStyle{Color: clr, Width: 1}
		for pi, q := range s.Points {
			x, y := trX(q.PerRequest), trY(q.Total)
			if q.PerRequestCI > 0 {
				lo, hi := trX(max(0, q.PerRequest-q.PerRequestCI)), trX(q.PerRequest+q.PerRequestCI)
				c.StrokeLine2(bar, lo, y, hi, y)
				c.StrokeLine2(bar, lo, y-3, lo, y+3)
				c.StrokeLine2(bar, hi, y-3, hi, y+3)
			}
			if q.TotalCI > 0 {
				lo, hi := trY(max(0, q.Total-q.TotalCI)), trY(q.Total+q.TotalCI)
				c.StrokeLine2(bar, x, lo, x, hi)
				c.StrokeLine2(bar, x-3, lo, x+3, lo)
				c.StrokeLine2(bar, x-3, hi, x+3, hi)
			}
			pt := vg.Point{X: x, Y: y}
			if onFront[ParetoRef{si, pi}] {
				// A ring in the text colour: the frontier's points stay
				// marked where the line is hidden under them.
				fillShape(&c, shapeCircle, pt, 6.5, pp.th.Foreground)
				fillShape(&c, shapeCircle, pt, 5, pp.th.Background)
			}
			drawMarker(&c, si%shapeCount, pt, 3.5, clr, pp.th.Background, q.Queued)
			c.FillText(label, vg.Point{X: x + 5, Y: y + 3}, "N="+strconv.Itoa(q.Concurrency))
		}
	}
}

// svgHead matches what vgsvg writes before the drawing: the XML prolog, a
// comment and the fixed-size <svg …> tag, which Inline replaces with a tag
// that scales to the page width.
var svgHead = regexp.MustCompile(`(?s)\A.*?<svg width="[^"]*" height="[^"]*" viewBox="([^"]*)"`)

// Inline makes an SVG chart fit for an HTML page (the run reports' and the
// sweep's): no prolog, a tag that scales to the page's width, and label
// as its accessible name (HTML-escaped here; the chart's own text is
// escaped by vgsvg).
func Inline(svg []byte, label string) string {
	return string(svgHead.ReplaceAll(svg, []byte(`<svg class="chart" role="img" aria-label="`+html.EscapeString(label)+`" viewBox="$1"`)))
}

// FrontierText words the frontier for text reports, one line per point,
// best per-request first: "1K×1 (B): 61.2 tok/s per request, 61.2 total".
func FrontierText(series []ParetoSeries, context int) []string {
	var out []string
	for _, r := range Frontier(series) {
		s := series[r.S]
		name := cmp.Or(s.Short, s.Label)
		p := s.Points[r.P]
		out = append(out, fmt.Sprintf("%s (%s): %.1f tok/s per request, %.1f total", rundoc.CellName(context, p.Concurrency),
			name, p.PerRequest, p.Total))
	}
	return out
}
