//go:build !race

// Left out of the race detector's pass, as results_test.go is: SetRun
// draws the charts off the UI goroutine.

package results_test

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/results"
)

// TestBurstCellsHaveTheirOwnTab (issue 39): a run's burst cells are rows
// of the Burst tab, with their latency and its ±, and neither cells of the
// decode matrix, nor rows of All measurements, nor the headline.
func TestBurstCellsHaveTheirOwnTab(t *testing.T) {
	test.NewTempApp(t)
	r := run()
	b := rundoc.Cell{Phase: rundoc.PhaseBurst, Context: 0, Concurrency: 32, Status: rundoc.StatusValid, TotalTokS: 1200, TTFTMs: 90,
		CompletedRequests: 128, MeasuredS: 30, CellBurst: rundoc.CellBurst{RequestCount: 128, WarmupRequests: 32, LatencyMs: 5000,
			LatencyMsCI95: 12.5, LatencyP90Ms: 5200, LatencyP99Ms: 5300, RequestsPerS: 4.27, RequestsPerSCI95: 0.02}}
	r.Cells = append(r.Cells, b)
	v := results.New()
	done := make(chan struct{})
	v.SetRun(r, func() { close(done) })
	<-done
	rows := v.BurstRows()
	if len(rows) != 1 || rows[0][0] != "0×32" || rows[0][1] != rundoc.FigLatency.TextCI(&b) {
		t.Errorf("Burst tab rows %q, want 0×32 with latency %s", rows, rundoc.FigLatency.TextCI(&b))
	}
	if n := len(v.Rows()); n != 3 {
		t.Errorf("All measurements has %d rows, want the 3 sustained cells", n)
	}
	if h := v.Headline(); strings.Contains(h, "1200") {
		t.Errorf("the headline %q holds the burst cell's tok/s", h)
	}
	var tabs []string
	for _, it := range v.Tabs().Items {
		tabs = append(tabs, it.Text)
	}
	if !slices.Contains(tabs, "Burst") {
		t.Errorf("the tabs are %q, want a Burst tab", tabs)
	}
}
