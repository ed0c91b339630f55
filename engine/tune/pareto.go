package tune

import (
	"bytes"
	"slices"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Pareto is the sweep's trade-off: each variant's decode cells at one
// context as series of engine/report/chart's Pareto chart (total against
// per-request tok/s, both ±), which also computes the frontier. The
// context is the objective's cell's when it names one, else the context
// with the most cells that produced both figures (the shortest among
// equals). ok is false when no cell did.
func (d *Doc) Pareto() (context int, series []chart.ParetoSeries, ok bool) {
	count := map[int]int{}
	for _, v := range d.Variants {
		for _, c := range v.Cells {
			if paretoCell(c) {
				count[c.Context]++
			}
		}
	}
	if o := d.objective(); o.Kind.cellObjective() && count[o.Context] > 0 {
		context, ok = o.Context, true
	} else {
		context, ok = chart.BusiestContext(count)
	}
	for i, v := range d.Variants {
		s := chart.ParetoSeries{Label: BarLabel(v)}
		if i == 0 {
			s.Label = "base: " + s.Label
		}
		for _, c := range v.Cells {
			if c.Context == context && paretoCell(c) {
				s.Points = append(s.Points, chart.ParetoPoint{Concurrency: c.Concurrency, Total: c.TotalTokS, TotalCI: c.TotalTokSCI95,
					PerRequest: c.PerRequestTokS, PerRequestCI: c.PerRequestTokSCI95, Queued: c.Status == rundoc.StatusQueued})
			}
		}
		slices.SortFunc(s.Points, func(a, b chart.ParetoPoint) int { return a.Concurrency - b.Concurrency })
		series = append(series, s)
	}
	return context, series, ok
}

// paretoCell says whether a variant's cell has both figures of the chart.
func paretoCell(c DocCell) bool {
	return c.Status.Ran() && c.TotalTokS > 0 && c.PerRequestTokS > 0
}

// ParetoChart draws the sweep's trade-off chart (PNG or SVG, opts as for
// every chart); ok is false when no cell has both figures.
func (d *Doc) ParetoChart(opts chart.Options) (out []byte, ok bool, err error) {
	ctx, series, ok := d.Pareto()
	if !ok {
		return nil, false, nil
	}
	var b bytes.Buffer
	title := "Trade-off across variants: total against per-request tok/s at context " + rundoc.ContextLabel(ctx)
	if err := chart.RenderPareto(&b, title, "Tune sweep "+d.SweepID, series, opts); err != nil {
		return nil, true, err
	}
	return b.Bytes(), true, nil
}

// FrontierText words the sweep's Pareto frontier, one line per point
// (chart.FrontierText), nil when no cell has both figures.
func (d *Doc) FrontierText() []string {
	ctx, series, ok := d.Pareto()
	if !ok {
		return nil
	}
	return chart.FrontierText(series, ctx)
}
