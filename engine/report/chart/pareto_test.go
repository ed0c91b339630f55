package chart_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// The frontier keeps the points nothing beats on both axes, across series,
// ordered from the fastest stream to the highest throughput; an equal
// point is not beaten.
func TestFrontier(t *testing.T) {
	series := []chart.ParetoSeries{
		{Label: "A", Points: []chart.ParetoPoint{{Concurrency: 1, PerRequest: 60, Total: 60}, {Concurrency: 8, PerRequest: 40, Total: 300},
			{Concurrency: 32, PerRequest: 20, Total: 500, Queued: true}}},
		{Label: "B", Points: []chart.ParetoPoint{{Concurrency: 1, PerRequest: 55, Total: 50}, {Concurrency: 4, PerRequest: 45, Total: 290},
			{Concurrency: 8, PerRequest: 30, Total: 250}, {Concurrency: 32, PerRequest: 20, Total: 500}}},
	}
	got := chart.Frontier(series)
	want := []chart.ParetoRef{{0, 0}, {1, 1}, {0, 1}, {0, 2}, {1, 3}}
	if len(got) != len(want) {
		t.Fatalf("frontier %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frontier %v, want %v", got, want)
			break
		}
	}
	text := chart.FrontierText(series, 1024)
	if len(text) != 5 || text[1] != "1K×4 (B): 45.0 tok/s per request, 290.0 total" {
		t.Errorf("FrontierText = %q", text)
	}
	if chart.Frontier(nil) != nil {
		t.Error("no points, no frontier")
	}
}

// The comparison's trade-off chart: the context with the most cells, one
// series per run, the faster run alone on the frontier, and a PNG the team
// looks at (RIGBENCH_CHART_OUT=dir writes it); TestSVGGolden pins its SVG.
func TestParetoChart(t *testing.T) {
	ref := referenceRun(t)
	runs := []*rundoc.Run{ref, variantRun(t, ref, 1.3)}
	ctx, ok := chart.ParetoContext(runs)
	if !ok {
		t.Fatal("the reference run has no decode cells with both figures")
	}
	series := chart.ParetoOf(runs, ctx)
	if len(series) != 2 || len(series[0].Points) < 3 || len(series[0].Points) != len(series[1].Points) {
		t.Fatalf("series %+v", series)
	}
	if f := chart.Frontier(series); len(f) == 0 || f[0].S != 1 {
		// The variant is 1.3× the reference everywhere: it alone is on the frontier.
		t.Errorf("frontier %v: want only the faster run's points", f)
	} else {
		for _, r := range f {
			if r.S != 1 {
				t.Errorf("frontier %v holds the slower run's point %v", f, r)
			}
		}
	}
	var png bytes.Buffer
	if err := chart.Render(&png, chart.Pareto, runs, chart.Options{}); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("RIGBENCH_CHART_OUT"); dir != "" {
		if err := os.WriteFile(dir+"/pareto.png", png.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var empty bytes.Buffer
	if err := chart.Render(&empty, chart.Pareto, []*rundoc.Run{{Schema: rundoc.Schema, UUID: "e"}}, chart.Options{Format: chart.SVG}); err != nil ||
		!strings.Contains(empty.String(), ">Not enough data</text>") {
		t.Errorf("an empty run's trade-off chart does not say Not enough data (%v)", err)
	}
}

// The lines charts and the Pareto chart key the same marks (a queued
// cell's hollow marker, a 95% interval's bar) in the same words (issue 42
// item 5: one said "hollow marker: …" and "bar: 95% interval", the other
// "hollow: …" and "bars: 95% intervals").
func TestLegendsWordMarkersAlike(t *testing.T) {
	cell := func(n int, total, ci float64, st rundoc.Status) rundoc.Cell {
		return rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 1024, Concurrency: n, Status: st,
			TotalTokS: total, TotalTokSCI95: ci, PerRequestTokS: total / float64(n), PerRequestTokSCI95: ci / float64(n)}
	}
	run := &rundoc.Run{Schema: rundoc.Schema, UUID: "7d0e8a1c-2b3f-4a5e-9c6d-1e2f3a4b5c6d", Status: rundoc.RunComplete,
		Plan:  rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{1, 4, 16}, DurationS: 30, MaxOutput: 64},
		Cells: []rundoc.Cell{cell(1, 50, 1, rundoc.StatusValid), cell(4, 180, 4, rundoc.StatusValid), cell(16, 260, 9, rundoc.StatusQueued)}}
	svg := func(kind chart.Kind) string {
		var b bytes.Buffer
		if err := chart.Render(&b, kind, []*rundoc.Run{run}, chart.Options{Format: chart.SVG}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	lines, pareto := svg(chart.DecodeTotal), svg(chart.Pareto)
	for _, key := range []string{"hollow marker: Requests queued (server did not hold all N)", "bar: 95% interval"} {
		if !strings.Contains(lines, ">"+key+"<") || !strings.Contains(pareto, ">"+key+"<") {
			t.Errorf("the lines chart (%v) and the Pareto chart (%v) do not both key %q", strings.Contains(lines, key), strings.Contains(pareto, key), key)
		}
	}
	for _, old := range []string{">hollow: ", "bars: 95% intervals"} {
		if strings.Contains(pareto, old) {
			t.Errorf("the Pareto chart still says %q", old)
		}
	}
}
