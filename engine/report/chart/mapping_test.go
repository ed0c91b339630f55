package chart_test

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

var (
	strokePath = regexp.MustCompile(`<path d="(M[^"]*)" style="fill:none;stroke:(#[0-9A-F]{6});stroke-width:([0-9.]+)[^"]*" />`)
	textElem   = regexp.MustCompile(`<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)
)

func hexOf(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// vertices parses "M x,y L x,y …" into points.
func vertices(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, seg := range regexp.MustCompile(`[ML]`).Split(d, -1) {
		if seg == "" {
			continue
		}
		x, y, ok := strings.Cut(seg, ",")
		if !ok {
			t.Fatalf("unexpected path segment %q", seg)
		}
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("unexpected path segment %q", seg)
		}
		out = append(out, [2]float64{fx, fy})
	}
	return out
}

// dataLines returns, per context index, the vertices of its data line in
// a single-run SVG: the last 1.5-wide stroke in that context's colour (the
// legend's sample line comes first).
func dataLines(t *testing.T, svg []byte, n int) [][][2]float64 {
	t.Helper()
	lines := make([][][2]float64, n)
	for _, m := range strokePath.FindAllSubmatch(svg, -1) {
		if string(m[3]) != "1.5" {
			continue
		}
		for i := 0; i < n; i++ {
			if string(m[2]) == hexOf(chart.Light.SeriesColor(i)) {
				lines[i] = vertices(t, string(m[1]))
			}
		}
	}
	return lines
}

type mapped struct {
	n, v float64 // concurrency and plotted figure
	x, y float64 // canvas position
}

// TestChartPointsLandOnData renders the reference run's decode and TTFT
// charts as SVG, reads the line vertices back and checks that they are
// where the numbers say: x is affine in log2(N) and y affine in the figure
// (or its log10 for TTFT), with one mapping shared by every context, one
// vertex per measured cell, and grid lines at the labelled tick values.
func TestChartPointsLandOnData(t *testing.T) {
	ref := referenceRun(t)
	contexts, _ := ref.DecodeAxes()
	cases := []struct {
		kind  chart.Kind
		value func(*rundoc.Cell) float64
		yMap  func(float64) float64
		ticks []float64
	}{
		{chart.DecodeTotal, func(c *rundoc.Cell) float64 { return c.TotalTokS }, func(v float64) float64 { return v }, []float64{0, 200, 400, 600, 800, 1000}},
		{chart.TTFT, func(c *rundoc.Cell) float64 { return c.TTFTMs }, math.Log10, []float64{200, 500, 1000, 2000, 5000, 10000}},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			var buf bytes.Buffer
			if err := chart.Render(&buf, tc.kind, []*rundoc.Run{ref}, chart.Options{Format: chart.SVG}); err != nil {
				t.Fatal(err)
			}
			lines := dataLines(t, buf.Bytes(), len(contexts))
			var pts []mapped
			for ci, ctx := range contexts {
				var want []mapped
				_, conc := ref.DecodeAxes()
				for _, n := range conc {
					if c := ref.Find(rundoc.PhaseDecode, ctx, n); c != nil && c.Status.Ran() {
						want = append(want, mapped{n: float64(n), v: tc.value(c)})
					}
				}
				if len(want) < 2 {
					continue // a single point draws no line
				}
				if len(lines[ci]) != len(want) {
					t.Fatalf("context %s: line has %d vertices, want %d (one per measured cell)", rundoc.ContextLabel(ctx), len(lines[ci]), len(want))
				}
				for i := range want {
					want[i].x, want[i].y = lines[ci][i][0], lines[ci][i][1]
				}
				pts = append(pts, want...)
			}
			if len(pts) < 10 {
				t.Fatalf("only %d points found in the SVG", len(pts))
			}
			// Fit the mappings from the two extreme points of context 0.
			a, b := pts[0], pts[5] // C=0: N=1 and N=32
			xScale := (b.x - a.x) / (math.Log2(b.n) - math.Log2(a.n))
			yScale := (b.y - a.y) / (tc.yMap(b.v) - tc.yMap(a.v))
			xAt := func(n float64) float64 { return a.x + xScale*(math.Log2(n)-math.Log2(a.n)) }
			yAt := func(v float64) float64 { return a.y + yScale*(tc.yMap(v)-tc.yMap(a.v)) }
			for _, p := range pts {
				// vgsvg prints 5 significant digits: 0.05 pt at worst.
				if math.Abs(p.x-xAt(p.n)) > 0.06 || math.Abs(p.y-yAt(p.v)) > 0.06 {
					t.Errorf("N=%g value %g drawn at (%.3f, %.3f), want (%.3f, %.3f)", p.n, p.v, p.x, p.y, xAt(p.n), yAt(p.v))
				}
			}
			// The labelled ticks must sit where the same mapping puts them:
			// a horizontal grid line at each, and its label printed.
			grid := map[string]bool{}
			for _, m := range strokePath.FindAllSubmatch(buf.Bytes(), -1) {
				if string(m[2]) != hexOf(chart.Light.Grid) {
					continue
				}
				if v := vertices(t, string(m[1])); len(v) == 2 && v[0][1] == v[1][1] {
					grid[fmt.Sprintf("%.1f", v[0][1])] = true
				}
			}
			labels := map[string]bool{}
			for _, m := range textElem.FindAllSubmatch(buf.Bytes(), -1) {
				labels[string(m[3])] = true
			}
			for _, tick := range tc.ticks {
				if y := fmt.Sprintf("%.1f", yAt(tick)); !grid[y] {
					t.Errorf("no grid line at tick %g (y=%s); grid lines at %v", tick, y, grid)
				}
				if !labels[strconv.FormatFloat(tick, 'f', -1, 64)] {
					t.Errorf("tick label %g not printed", tick)
				}
			}
		})
	}
}
