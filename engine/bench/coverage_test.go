package bench_test

import (
	"context"
	"flag"
	"math"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// coverageCells is how many cells TestCoverage repeats. The quick default
// keeps `make test` short; `make bench` runs 100 (-coverage-cells 100).
var coverageCells = flag.Int("coverage-cells", 10, "cells TestCoverage repeats")

// TestCoverage checks what a 95% interval promises: over repeated decode
// cells against a simulator whose step times vary (Config.Noise), the
// interval total_tok_s ± total_tok_s_ci95 holds the simulator's true rate
// (sim.Server.TrueRate: the window's tokens over their noiseless time)
// about 95% of the time.
func TestCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through whole cells in real time (5 s or more): skipped with -short (make test runs it)")
	}
	const speed = 10
	cfg := tinyConfig(t, speed)
	cfg.Noise = 0.1
	srv, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{128}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 512,
		Window: rundoc.WindowAuto, Precision: 0.01}
	held, n := 0, *coverageCells
	var widths []float64
	for i := range n {
		run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cell := run.Cells[0]
		if cell.Status != rundoc.StatusValid || cell.TotalTokSCI95 <= 0 {
			t.Fatalf("cell %d: %s (%s), ± %v", i, cell.Status, cell.Reason, cell.TotalTokSCI95)
		}
		from := cell.WindowStart
		to := from.Add(time.Duration(cell.MeasuredS / speed * float64(time.Second)))
		truth := srv.TrueRate(from, to)
		ok := math.Abs(cell.TotalTokS-truth) <= cell.TotalTokSCI95
		if ok {
			held++
		}
		widths = append(widths, cell.TotalTokSCI95/truth)
		t.Logf("cell %2d: %.1f s: %.1f ± %.1f tok/s, true %.1f, err %+.2f%% ± %.2f%%: %v", i, cell.MeasuredS, cell.TotalTokS, cell.TotalTokSCI95, truth, 100*(cell.TotalTokS-truth)/truth, 100*cell.TotalTokSCI95/truth, ok)
	}
	frac := float64(held) / float64(n)
	t.Logf("the interval held the true rate in %d of %d cells (%.0f%%)", held, n, 100*frac)
	switch {
	case n >= 50 && (frac < 0.90 || frac > 0.99):
		// Issue 15's acceptance bound. With 100 cells a correct 95%
		// interval falls outside it about 2% of the time.
		t.Errorf("coverage %.0f%% over %d cells, want 90–99%%", 100*frac, n)
	case n < 50 && held < n*7/10:
		// A quick run says only that the interval is not far too narrow:
		// 7 of 10 or fewer happens 0.1% of the time at 95%.
		t.Errorf("coverage %d of %d cells, want at least 70%% of a 95%% interval", held, n)
	}
}
