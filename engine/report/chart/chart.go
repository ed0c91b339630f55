package chart

import (
	"errors"
	"fmt"
	"io"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Kind names one chart.
type Kind string

// The charts RigBench draws. Lines are one per context for a single run;
// in a comparison colour and dash name the run and the marker the context.
const (
	// DecodeTotal: total tok/s against concurrency N (log2 axis).
	DecodeTotal Kind = "decode"
	// PerRequest: per-request tok/s against N.
	PerRequest Kind = "per-request"
	// TTFT: median time to first token (ms, log axis) against N.
	TTFT Kind = "ttft"
	// Prefill: prompt tok/s against context (log2 axis).
	Prefill Kind = "prefill"
	// Matrix: the decode matrix as a heatmap of total tok/s with statuses.
	Matrix Kind = "matrix"
	// Energy: joules per output token against N, where telemetry exists.
	Energy Kind = "energy"
)

// Kinds lists every chart in the order reports show them.
func Kinds() []Kind { return []Kind{Matrix, DecodeTotal, PerRequest, TTFT, Prefill, Energy} }

// KindsFor lists the charts of a page of runs (1 run, or a comparison):
// Kinds, and for a comparison the trade-off chart (Pareto) last.
func KindsFor(runs int) []Kind {
	if runs > 1 {
		return append(Kinds(), Pareto)
	}
	return Kinds()
}

// ParseKind reads a chart name as written by Kind's constants (Pareto
// included).
func ParseKind(s string) (Kind, error) {
	for _, k := range append(Kinds(), Pareto) {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown chart %q: use one of matrix, decode, per-request, ttft, prefill, energy, pareto", s)
}

// Format is the output encoding.
type Format string

// Output formats.
const (
	PNG Format = "png"
	SVG Format = "svg"
)

// Default size of a chart in CSS pixels (1/96 inch).
const (
	DefaultWidth  = 800
	DefaultHeight = 480
)

// Options say how to draw. Zero values take the defaults.
type Options struct {
	Format Format // PNG (default) or SVG
	// Width and Height in CSS pixels; a PNG has Width×Scale by
	// Height×Scale pixels, an SVG is Width×Height px in points (×0.75).
	Width, Height int
	// Scale multiplies the PNG's pixel density (a HiDPI screen's scale, 2
	// for a retina display). Default 1. Ignored for SVG.
	Scale float64
	// Dark selects the dark palette.
	Dark bool
}

func (o Options) withDefaults() Options {
	if o.Format == "" {
		o.Format = PNG
	}
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.Height <= 0 {
		o.Height = DefaultHeight
	}
	if o.Scale <= 0 {
		o.Scale = 1
	}
	return o
}

// pxToPt converts CSS pixels to points: 96 px = 72 pt = 1 inch.
const pxToPt = 0.75

// Size limits keep a typo from allocating gigabytes.
const (
	minSize  = 160
	maxSize  = 8000
	maxScale = 4
)

func (o Options) check() error {
	if o.Format != PNG && o.Format != SVG {
		return fmt.Errorf("unknown chart format %q: use png or svg", o.Format)
	}
	if o.Width < minSize || o.Height < minSize || o.Width > maxSize || o.Height > maxSize {
		return fmt.Errorf("a chart must be between %d and %d pixels wide and high, not %d×%d", minSize, maxSize, o.Width, o.Height)
	}
	if o.Scale > maxScale {
		return fmt.Errorf("a chart's scale must be at most %d, not %g", maxScale, o.Scale)
	}
	return nil
}

// Render draws one chart of 1 run, or of a comparison of 2–6 runs, and
// writes it as PNG or SVG. Missing data is drawn ("Not enough data"), not
// reported as an error; errors are for bad arguments and failed writes.
func Render(w io.Writer, kind Kind, runs []*rundoc.Run, opts Options) error {
	opts = opts.withDefaults()
	if err := check(kind, runs, opts); err != nil {
		return err
	}
	return paint(w, opts, func(c draw.Canvas, th Theme) { draw1(c, kind, runs, th) })
}

// paint makes the canvas opts ask for (PNG or SVG at their size), lets
// drawing fill it in the theme's colours and writes it to w.
func paint(w io.Writer, opts Options, drawing func(draw.Canvas, Theme)) error {
	width, height := vg.Length(opts.Width)*pxToPt, vg.Length(opts.Height)*pxToPt
	var out io.WriterTo
	var canvas vg.CanvasSizer
	switch opts.Format {
	case SVG:
		c := vgsvg.NewWith(vgsvg.UseWH(width, height))
		canvas, out = c, c
	default:
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(int(96*opts.Scale+0.5)))
		canvas, out = c, vgimg.PngCanvas{Canvas: c}
	}
	drawing(draw.New(canvas), ThemeFor(opts.Dark))
	_, err := out.WriteTo(w)
	return err
}

func check(kind Kind, runs []*rundoc.Run, opts Options) error {
	if _, err := ParseKind(string(kind)); err != nil {
		return err
	}
	if len(runs) == 0 {
		return errors.New("no run to chart: give one run, or 2–6 to compare")
	}
	if len(runs) > MaxRuns {
		return fmt.Errorf("a comparison shows at most %d runs, not %d: pick fewer", MaxRuns, len(runs))
	}
	for _, r := range runs {
		if r == nil {
			return errors.New("no run to chart: a run is missing")
		}
	}
	return opts.check()
}

// draw1 paints the background and the chart.
func draw1(c draw.Canvas, kind Kind, runs []*rundoc.Run, th Theme) {
	c.SetColor(th.Background)
	c.Fill(c.Rectangle.Path())
	switch kind {
	case Matrix:
		drawMatrix(c, runs, th)
		return
	case Pareto:
		drawParetoRuns(c, runs, th)
		return
	}
	drawLines(c, kind, runs, th)
}
