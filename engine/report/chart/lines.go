package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// point is one plotted cell; queued marks "Requests queued" cells, drawn
// hollow because their figures are not at the full concurrency. ci is the
// half-width of y's 95% interval, drawn as an error bar (0: none).
type point struct {
	x, y, ci float64
	queued   bool
}

// pointOf is the plotted point of cell c at x, with its error bar.
func pointOf(kind Kind, c *rundoc.Cell, x, y float64) point {
	ci, _ := kindFigures[kind].CI95(c)
	return point{x: x, y: y, ci: ci, queued: c.Status == rundoc.StatusQueued}
}

// series is one line of a line chart.
type series struct {
	color  color.Color
	dashes []vg.Length
	shape  int
	points []point
}

// metric reads the figure a line chart plots from a cell, and whether the
// cell has it: only cells that ran (Valid or Requests queued) and measured
// a positive value are plotted.
func metric(kind Kind, c *rundoc.Cell) (float64, bool) {
	if !c.Status.Ran() {
		return 0, false
	}
	v, ok := kindFigures[kind].Value(c)
	return v, ok && v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// kindFigures is the registry figure each chart plots.
var kindFigures = map[Kind]rundoc.Figure{
	Matrix:      rundoc.FigTotalTokS,
	DecodeTotal: rundoc.FigTotalTokS,
	PerRequest:  rundoc.FigPerRequestTokS,
	TTFT:        rundoc.FigTTFT,
	Prefill:     rundoc.FigPromptTokS,
	Energy:      rundoc.FigEnergy,
}

// lineSpec is what differs between the line charts.
type lineSpec struct {
	title, yLabel, noData string
}

var lineSpecs = map[Kind]lineSpec{
	DecodeTotal: {"Decode throughput: total tok/s by concurrency", rundoc.FigTotalTokS.Label, "no decode cell produced figures"},
	PerRequest:  {"Per-request speed: tok/s of one stream by concurrency", rundoc.FigPerRequestTokS.Label, "no decode cell produced figures"},
	TTFT:        {"Time to first token by concurrency (cached prompts)", "median " + rundoc.FigTTFT.Label, "no decode cell produced figures"},
	Prefill:     {"Prefill: prompt tok/s by context", rundoc.FigPromptTokS.Label, "no prefill cell produced figures"},
	Energy:      {"Energy per output token by concurrency", rundoc.FigEnergy.Label, "no GPU power telemetry was recorded (energy needs an NVIDIA GPU)"},
}

// noEnergyWhy says why no run has energy figures: a simulated run has no
// card; an imported run or one against an endpoint may well have run on
// an NVIDIA GPU, but its file or this computer carried no power readings;
// only a run RigBench launched on this computer without a GPU lacked one.
func noEnergyWhy(runs []*rundoc.Run) string {
	allSim, anyImported, anyEndpoint := true, false, false
	for _, r := range runs {
		allSim = allSim && r.Simulated
		anyImported = anyImported || r.Origin == rundoc.OriginImported
		anyEndpoint = anyEndpoint || (r.Launch == nil && !r.Simulated && r.Origin != rundoc.OriginImported)
	}
	switch {
	case len(runs) > 0 && allSim:
		return "a simulated server has no GPU power readings"
	case anyImported:
		return "the run file carried no GPU power readings"
	case anyEndpoint:
		return "no GPU power readings: RigBench reads power from an NVIDIA GPU on its own computer only"
	}
	return lineSpecs[Energy].noData
}

// dashesFor gives run i of a comparison its own dash pattern, so runs stay
// apart in grey print and for readers who cannot tell the colours apart.
func dashesFor(i int) []vg.Length {
	switch i % 4 {
	case 1:
		return []vg.Length{6, 3}
	case 2:
		return []vg.Length{2, 2}
	case 3:
		return []vg.Length{8, 3, 2, 3}
	}
	return nil
}

// contextsOf lists the decode contexts of all runs, ascending.
func contextsOf(runs []*rundoc.Run) []int {
	var out []int
	for _, r := range runs {
		cs, _ := r.DecodeAxes()
		out = append(out, cs...)
	}
	return rundoc.SortedUnique(out)
}

// buildSeries extracts the lines of a chart. For one run each context is a
// line in its own colour; in a comparison colour and dash name the run and
// the marker shape names the context. Prefill has one line per run.
func buildSeries(kind Kind, runs []*rundoc.Run, th Theme) (lines []series, contexts []int) {
	compare := len(runs) > 1
	if kind == Prefill {
		for i, r := range runs {
			s := series{color: th.SeriesColor(i), dashes: dashesFor(i), shape: i}
			if !compare {
				s.shape = shapeCircle
			}
			for _, c := range r.PrefillCells() {
				if v, ok := metric(kind, &c); ok && c.Context > 0 {
					s.points = append(s.points, pointOf(kind, &c, float64(c.Context), v))
				}
			}
			lines = append(lines, s)
		}
		return lines, nil
	}
	contexts = contextsOf(runs)
	for ri, r := range runs {
		// The run's axis and cells are looked up once, not per context:
		// per context they made the chart cubic in the contexts.
		_, conc := r.DecodeAxes()
		index := r.Index()
		for ci, ctx := range contexts {
			s := series{color: th.SeriesColor(ci), shape: shapeCircle}
			if compare {
				s = series{color: th.SeriesColor(ri), dashes: dashesFor(ri), shape: ci}
			}
			for _, n := range conc {
				c := index.Find(rundoc.PhaseDecode, ctx, n)
				if c == nil || n <= 0 {
					continue
				}
				if v, ok := metric(kind, c); ok {
					s.points = append(s.points, pointOf(kind, c, float64(n), v))
				}
			}
			lines = append(lines, s)
		}
	}
	return lines, contexts
}

// drawLines draws one of the line charts.
func drawLines(c draw.Canvas, kind Kind, runs []*rundoc.Run, th Theme) {
	spec := lineSpecs[kind]
	c = drawHeader(c, th, spec.title, subtitle(runs))
	lines, contexts := buildSeries(kind, runs, th)
	var xs, ys []float64
	anyQueued, anyCI := false, false
	for _, s := range lines {
		for _, p := range s.points {
			xs = append(xs, p.x)
			ys = append(ys, p.y, p.y+p.ci)
			anyQueued = anyQueued || p.queued
			anyCI = anyCI || p.ci > 0
		}
	}
	c = drawLegend(c, th, legendFor(kind, runs, lines, contexts, anyQueued, anyCI, th), []bool{true, false, false})
	if len(xs) == 0 {
		why := spec.noData
		if kind == Energy {
			why = noEnergyWhy(runs)
		}
		drawNoData(c, th, why)
		return
	}
	p := newPlot(th)
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = log2Range(slices.Min(xs), slices.Max(xs))
	uniq := slices.Compact(slices.Sorted(slices.Values(xs)))
	if kind == Prefill {
		p.X.Label.Text = "context (tokens)"
		p.X.Tick.Marker = contextTicks(uniq)
	} else {
		p.X.Label.Text = "concurrency N (requests in flight)"
		p.X.Tick.Marker = powerOfTwoTicks(p.X.Min, p.X.Max, uniq)
	}
	p.Y.Label.Text = spec.yLabel
	if kind == TTFT {
		p.Y.Scale = plot.LogScale{}
		min, max, ticks := log10Axis(slices.Min(ys), slices.Max(ys))
		p.Y.Min, p.Y.Max, p.Y.Tick.Marker = min, max, ticks
	} else {
		top, ticks := linearAxis(slices.Max(ys))
		p.Y.Min, p.Y.Max, p.Y.Tick.Marker = 0, top, ticks
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = th.Grid, th.Grid
	p.Add(grid)
	for _, s := range lines {
		p.Add(&linePlotter{s: s, bg: th.Background})
	}
	p.Draw(draw.Crop(c, pad, -pad, 0, 0))
}

// subtitle describes a single run; a comparison's legend does that instead.
func subtitle(runs []*rundoc.Run) string {
	sims := 0
	for _, r := range runs {
		if r.Simulated {
			sims++
		}
	}
	if len(runs) == 1 {
		d := Describe(runs[0])
		if runs[0].Name != "" {
			d = runs[0].Name + " · " + d
		}
		if sims == 1 {
			// First, where a long name cannot push it out of the picture:
			// a shared chart must say it is not a real card's.
			d = "SIMULATED · " + strings.TrimSuffix(d, " · simulated")
		}
		return d
	}
	s := fmt.Sprintf("Comparison of %d runs", len(runs))
	switch {
	case sims == len(runs):
		s += ", all simulated"
	case sims > 0:
		s += fmt.Sprintf(", %d simulated", sims)
	}
	return s
}

// newPlot returns a plot styled by the theme, with a transparent
// background so the canvas colour shows.
func newPlot(th Theme) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Color = th.Muted
		a.LineStyle.Color = th.Muted
		a.Tick.LineStyle.Color = th.Muted
		a.Label.TextStyle.Color = th.Foreground
		a.Label.TextStyle.Font = font.From(sans, labelSize)
		a.Label.TextStyle.Handler = roomy
		a.Tick.Label.Color = th.Foreground
		a.Tick.Label.Font = font.From(sans, tickSize)
		a.Tick.Label.Handler = roomy
	}
	return p
}

// legendFor builds the legend groups: the lines (contexts of one run, or
// the runs of a comparison, one per line), the context markers of a
// comparison, and the keys to hollow markers when a cell queued and to
// error bars when a point has one.
func legendFor(kind Kind, runs []*rundoc.Run, lines []series, contexts []int, queued, ci bool, th Theme) [][]legendEntry {
	var first, second []legendEntry
	lineThumb := func(s series, marker bool) func(*draw.Canvas, vg.Point) {
		return func(c *draw.Canvas, pt vg.Point) {
			c.StrokeLine2(draw.LineStyle{Color: s.color, Width: 1.5, Dashes: s.dashes}, pt.X-thumbW/2, pt.Y, pt.X+thumbW/2, pt.Y)
			if marker {
				drawMarker(c, s.shape, pt, 3, s.color, th.Background, false)
			}
		}
	}
	switch {
	case len(runs) > 1:
		labels := RunLabels(runs)
		per := len(lines) / len(runs)
		for i := range runs {
			first = append(first, legendEntry{label: labels[i], thumb: lineThumb(lines[i*per], kind == Prefill)})
		}
		if kind != Prefill {
			for ci, ctx := range contexts {
				if !contextPlotted(lines, len(contexts), ci) {
					continue
				}
				shape := ci
				second = append(second, legendEntry{label: "C = " + rundoc.ContextLabel(ctx), thumb: func(c *draw.Canvas, pt vg.Point) {
					drawMarker(c, shape, pt, 3.5, th.Muted, th.Background, false)
				}})
			}
		}
	case kind != Prefill:
		for ci, ctx := range contexts {
			if len(lines[ci].points) == 0 {
				continue // a context with no figures has no line to name
			}
			second = append(second, legendEntry{label: "C = " + rundoc.ContextLabel(ctx), thumb: lineThumb(lines[ci], true)})
		}
	}
	return [][]legendEntry{first, second, markerKeys(th, queued, ci, false)}
}

// linePlotter draws a series as a polyline through its points with a
// marker on each.
type linePlotter struct {
	s  series
	bg color.Color
}

var _ plot.Plotter = (*linePlotter)(nil)

// Plot implements plot.Plotter.
func (l *linePlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(l.s.points))
	for i, q := range l.s.points {
		pts[i] = vg.Point{X: trX(q.x), Y: trY(q.y)}
	}
	if len(pts) > 1 {
		c.StrokeLines(draw.LineStyle{Color: l.s.color, Width: 1.5, Dashes: l.s.dashes}, c.ClipLinesXY(pts)...)
	}
	for i, q := range l.s.points {
		if q.ci > 0 {
			l.errorBar(&c, pts[i].X, trY, q)
		}
		drawMarker(&c, l.s.shape, pts[i], 3.5, l.s.color, l.bg, q.queued)
	}
}

// errorBar draws q's 95% interval as a vertical bar with short caps,
// clipped to the plot (a log axis has no room below its minimum).
func (l *linePlotter) errorBar(c *draw.Canvas, x vg.Length, trY func(float64) vg.Length, q point) {
	lo, hi := trY(max(q.y-q.ci, q.y/1000)), trY(q.y+q.ci)
	lo, hi = max(lo, c.Min.Y), min(hi, c.Max.Y)
	if hi-lo < 1 {
		return // narrower than a point: the marker says it all
	}
	st := draw.LineStyle{Color: l.s.color, Width: 1}
	c.StrokeLine2(st, x, lo, x, hi)
	c.StrokeLine2(st, x-3, lo, x+3, lo)
	c.StrokeLine2(st, x-3, hi, x+3, hi)
}

// contextPlotted reports whether any run has a point at context index ci
// (lines hold len(contexts) series per run, run by run).
func contextPlotted(lines []series, nContexts, ci int) bool {
	for i := ci; i < len(lines); i += nContexts {
		if len(lines[i].points) > 0 {
			return true
		}
	}
	return false
}
