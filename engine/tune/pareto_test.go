package tune_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// The sweep's trade-off: one series per variant at the objective's context,
// both ± carried from the runs, the frontier from engine/report/chart's one
// computation, and the chart and frontier in the HTML, the Markdown and the
// terminal text. RIGBENCH_CHART_OUT=dir writes the PNG and HTML to look at.
func TestSweepPareto(t *testing.T) {
	cell := func(n int, total, ci float64, st rundoc.Status) rundoc.Cell {
		c := decode(16384, n, st, total, 900)
		c.TotalTokSCI95, c.PerRequestTokSCI95 = ci, ci/float64(n)
		return c
	}
	res := judged(t, "total-tok-s@16Kx8", nil,
		[]rundoc.Cell{cell(4, 180, 6, v), cell(8, 300, 9, v), decode(65536, 4, v, 90, 3000)},
		[]rundoc.Cell{cell(4, 200, 5, v), cell(8, 290, 8, v)}, // a faster 16K×4: on the frontier
		[]rundoc.Cell{cell(4, 150, 4, v), cell(8, 240, 7, q)}, // beaten everywhere
		[]rundoc.Cell{cell(4, 176, 6, v), cell(8, 360, 9, v)}, // the best throughput
	)
	d := res.Document()
	ctx, series, ok := d.Pareto()
	if !ok || ctx != 16384 || len(series) != 4 || len(series[0].Points) != 2 || !strings.HasPrefix(series[0].Label, "base: ") {
		t.Fatalf("Pareto = %d, %+v, %v", ctx, series, ok)
	}
	if p := series[1].Points[0]; p.TotalCI != 5 || p.PerRequestCI != 5.0/4 || p.Concurrency != 4 {
		t.Errorf("variant 2's 16K×4 point %+v lost its ±", p)
	}
	var on []string
	for _, r := range chart.Frontier(series) {
		on = append(on, series[r.S].Label+"@"+string(rune('0'+series[r.S].Points[r.P].Concurrency)))
	}
	// 16K×4: variant 2 has 50 tok/s per request and 200 total; variant 4's
	// 16K×8 has the most total. Everything else is beaten on both.
	if strings.Join(on, " ") != series[1].Label+"@4 "+series[3].Label+"@8" {
		t.Errorf("frontier %q", on)
	}
	front := d.FrontierText()
	var md, text, page strings.Builder
	if err := d.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := d.Text(&text); err != nil {
		t.Fatal(err)
	}
	if err := d.HTML(&page); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"Markdown": md.String(), "text": text.String(), "HTML": page.String()} {
		if !strings.Contains(out, "Pareto frontier") && !strings.Contains(out, "Trade-off across variants") || !strings.Contains(out, front[0]) {
			t.Errorf("%s lacks the frontier %q:\n%s", name, front, out)
		}
	}
	if !strings.Contains(page.String(), `<svg class="chart" role="img" aria-label="Trade-off across variants"`) {
		t.Error("the HTML has no trade-off chart")
	}
	png, ok, err := d.ParetoChart(chart.Options{})
	if err != nil || !ok || len(png) == 0 {
		t.Fatalf("ParetoChart: %d bytes, %v, %v", len(png), ok, err)
	}
	if dir := os.Getenv("RIGBENCH_CHART_OUT"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "sweep_pareto.png"), png, 0o644)
		_ = os.WriteFile(filepath.Join(dir, "sweep.html"), []byte(page.String()), 0o644)
	}
}
