//go:build !race

package bench_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// steadySpeed runs TestWindowLengthDoesNotMatter's simulator: at 10× a
// 30 s window lasts 3 real seconds, and a client stall of 5 ms moves 50 ms
// of card time across a window's edge, under 0.5% of a 15 s window.
const steadySpeed = 10

// TestWindowLengthDoesNotMatter is issue 22's acceptance test of the
// steady-state window, on the default profile (the simulated RTX 3060):
//   - at contexts 0 and 16K × N 1, 4, 16, with 15 s and 30 s windows, every
//     Valid decode cell's total tok/s is what the simulator served over the
//     window it opened (its ground truth between window_start and D later)
//     within 1%;
//   - at 0×16 and 16K×16 the headline does not depend on the window's
//     length: 15 s, 30 s and auto agree within their ± (or 2%, whichever
//     is larger). Before windows opened at steady state, 16K×16 read 175.5
//     with 15 s windows and 277.2 with auto.
//
// Timing-sensitive (card time at 10×), so it runs without -race, beside
// TestReferenceRun in make test.
func TestWindowLengthDoesNotMatter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three small matrices on the default profile; skipped with -short")
	}
	type method struct {
		name   string
		window string
		d      float64
	}
	methods := []method{{"15 s", rundoc.WindowFixed, 15}, {"30 s", rundoc.WindowFixed, 30}, {"auto", rundoc.WindowAuto, 30}}
	got := map[string]map[string]rundoc.Cell{}
	for _, m := range methods {
		cfg := sim.DefaultConfig()
		cfg.Speed, cfg.Seed = steadySpeed, 7
		srv, c := startSim(t, cfg)
		plan := rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 4, 16}, DurationS: m.d,
			MaxOutput: rundoc.DefaultMaxOutput, Window: m.window}
		if m.window == rundoc.WindowAuto {
			plan.Precision = rundoc.DefaultPrecision
		}
		run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		got[m.name] = map[string]rundoc.Cell{}
		truth := srv.Truth()
		for _, cell := range run.Cells {
			key := fmt.Sprintf("%s×%d", rundoc.ContextLabel(cell.Context), cell.Concurrency)
			got[m.name][key] = cell
			if cell.Status != rundoc.StatusValid {
				t.Errorf("%s %s: %s (%s)", m.name, key, cell.Status, cell.Reason)
				continue
			}
			if cell.RampS < rundoc.SteadyHold.Seconds() || cell.WarmupTimedOut {
				t.Errorf("%s %s: ramp %g s, timed out %v: want a steady opening after at least %v", m.name, key, cell.RampS, cell.WarmupTimedOut, rundoc.SteadyHold)
			}
			if m.window != rundoc.WindowFixed {
				continue
			}
			// The truth is in real time: the window lasted D / speed.
			from := cell.WindowStart
			to := from.Add(time.Duration(m.d / steadySpeed * float64(time.Second)))
			served := 0
			for _, rec := range truth {
				served += rec.TokensBetween(from, to)
			}
			want := float64(served) / m.d
			if off := math.Abs(cell.TotalTokS-want) / want; off > 0.01 {
				t.Errorf("%s %s: total %.1f tok/s, the simulator served %.1f over the window (%.2f%% off, want ≤ 1%%)", m.name, key, cell.TotalTokS, want, 100*off)
			}
			t.Logf("%-4s %-6s total %6.1f ± %.1f (truth %6.1f)  per request %.1f  TTFT %.0f ms  TBT %.1f ms  ramp %.1f s  (%s)",
				m.name, key, cell.TotalTokS, cell.TotalTokSCI95, want, cell.PerRequestTokS, cell.TTFTMs, cell.TBTMs, cell.RampS, cell.Readiness)
		}
	}
	for _, key := range []string{"0×16", "16K×16"} {
		ref := got["30 s"][key]
		for _, name := range []string{"15 s", "auto"} {
			c := got[name][key]
			allowed := math.Max(0.02*ref.TotalTokS, c.TotalTokSCI95+ref.TotalTokSCI95)
			if d := math.Abs(c.TotalTokS - ref.TotalTokS); d > allowed {
				t.Errorf("%s: %s windows read %.1f ± %.1f, 30 s ones %.1f ± %.1f: %.1f apart, more than %.1f", key, name,
					c.TotalTokS, c.TotalTokSCI95, ref.TotalTokS, ref.TotalTokSCI95, d, allowed)
			}
		}
		t.Logf("%s: 15 s %.1f, 30 s %.1f, auto %.1f", key, got["15 s"][key].TotalTokS, ref.TotalTokS, got["auto"][key].TotalTokS)
	}
}
