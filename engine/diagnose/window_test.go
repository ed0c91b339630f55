package diagnose_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
)

// firstKinds is each decode cell's most binding limit ("" for none), by
// "C×N": what the run's bottleneck lines name.
func firstKinds(run *rundoc.Run) map[string]diagnose.Kind {
	out := map[string]diagnose.Kind{}
	for i := range run.Cells {
		c := &run.Cells[i]
		if c.Phase != rundoc.PhaseDecode {
			continue
		}
		k := diagnose.Kind("")
		if b := diagnose.Cell(run, c); len(b) > 0 {
			k = b[0].Kind
		}
		out[c.Name()] = k
	}
	return out
}

// recorded is a decode cell as a run records it.
func recorded(ctx, n int, rampS, windowS, ttft, p99, roofline float64) rundoc.Cell {
	prompt := max(ctx, 12) // context 0's prompt is the request alone
	return rundoc.Cell{Phase: rundoc.PhaseDecode, Context: ctx, Concurrency: n, Status: rundoc.StatusValid, TotalTokS: 100,
		MeasuredS: windowS, TTFTMs: ttft, TTFTP99Ms: p99, RooflinePct: roofline, PromptTokens: prompt,
		CellWindow: rundoc.CellWindow{RampS: rampS}}
}

// TestSameBottlenecksAtAnyWindow is issue 35's "the diagnosis misreads auto
// windows": the same matrix on the simulator's RTX 3060 profile, as
// recorded with 30 s windows and with auto ones (about 5 s), names the
// same bottleneck in every cell. Before, a ramp longer than the window was
// front-end-bound, so the auto run called 16K×4, 16K×16 and 32K×4
// front-end-bound and the 30 s one did not; only 0×16, whose 16 requests'
// handling took seconds where their 12-token prompts explain milliseconds,
// is front-end-bound in both.
func TestSameBottlenecksAtAnyWindow(t *testing.T) {
	prefill := []rundoc.Cell{
		{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 2198, PromptTokens: 8192, CellChecks: rundoc.CellChecks{ServerPromptTokS: 3166}},
		{Phase: rundoc.PhasePrefill, Context: 16384, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 2019, PromptTokens: 16384, CellChecks: rundoc.CellChecks{ServerPromptTokS: 2437}},
		{Phase: rundoc.PhasePrefill, Context: 32768, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 1533, PromptTokens: 32768, CellChecks: rundoc.CellChecks{ServerPromptTokS: 1669}},
	}
	// The cells as `rigbench-cli run --demo` recorded them (ramp s, window
	// s, TTFT median and p99 ms, roofline %).
	fixed := append(slices.Clone(prefill),
		recorded(0, 1, 5.017, 30, 786.7, 786.7, 68.0), recorded(0, 4, 5.02, 30, 485.3, 748.1, 64.2), recorded(0, 16, 6.027, 30, 1517.2, 2792.1, 54.1),
		recorded(16384, 1, 6.045, 30, 1385.4, 1385.4, 63.5), recorded(16384, 4, 10.018, 30, 3420.8, 5338.6, 53.2), recorded(16384, 16, 26.003, 30, 11536.4, 21396, 39.1),
		recorded(32768, 1, 5.017, 30, 1607.6, 1607.6, 59.4), recorded(32768, 4, 11.004, 30, 3999, 6289.6, 46.3))
	auto := append(slices.Clone(prefill),
		recorded(0, 1, 4.127, 5.303, 211.9, 211.9, 67.8), recorded(0, 4, 4.02, 5.511, 472, 739.7, 64.6), recorded(0, 16, 6.047, 5.035, 1512.4, 2754.8, 55.4),
		recorded(16384, 1, 6.017, 11.278, 1381.8, 1381.8, 63.5), recorded(16384, 4, 9.023, 5.017, 3411.3, 5312.2, 53.2), recorded(16384, 16, 26.01, 6.261, 11400.9, 21239.3, 39.3),
		recorded(32768, 1, 6.006, 7.788, 1620, 1620, 59.8), recorded(32768, 4, 13.021, 7.768, 7474.3, 7612.4, 46.2))
	a, b := firstKinds(&rundoc.Run{Cells: fixed}), firstKinds(&rundoc.Run{Cells: auto})
	for cell, k := range a {
		if b[cell] != k {
			t.Errorf("%s: 30 s windows %q, auto %q: want the same bottleneck", cell, k, b[cell])
		}
	}
	for cell, k := range b {
		if want := diagnose.Kind(""); cell == "0×16" {
			want = diagnose.FrontEnd
			if k != want {
				t.Errorf("0×16 (auto): %q, want front-end-bound", k)
			}
		} else if k == diagnose.FrontEnd {
			t.Errorf("%s (auto): front-end-bound; its first tokens are what the prefill of its prompts explains", cell)
		}
	}
	run := &rundoc.Run{Cells: auto}
	b016 := diagnose.Cell(run, run.Find(rundoc.PhaseDecode, 0, 16))
	if want := "0×16: front-end-bound (TTFT p99 2755 ms, where the server's prompt rate (3166 tok/s at 8K) explains at most 61 ms for 16 prompts of 12 tokens: request handling, not prefill, took the time)"; len(b016) == 0 || b016[0].Text() != want {
		t.Errorf("0×16: %+v\nwant %q", b016, want)
	}
}

// TestLongPrefillRampIsNotFrontEnd is issue 35's 64K×16: sixteen 64K
// prompts, each computed in full at the server's own 1,100 tok/s, explain
// up to 953 s of first tokens, so a ramp of nearly two minutes, far longer
// than a 5 s window, is prefill, not front end. The same first tokens at a
// context whose prompts explain a hundredth of it are front end.
func TestLongPrefillRampIsNotFrontEnd(t *testing.T) {
	prefill := rundoc.Cell{Phase: rundoc.PhasePrefill, Context: 65536, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 950,
		CellChecks: rundoc.CellChecks{ServerPromptTokS: 1100}}
	long := recorded(65536, 16, 118, 5, 60000, 115000, 30)
	run := &rundoc.Run{Cells: []rundoc.Cell{prefill, long}}
	if b := diagnose.Cell(run, &run.Cells[1]); slices.ContainsFunc(b, func(b diagnose.Bottleneck) bool { return b.Kind == diagnose.FrontEnd }) {
		t.Errorf("64K×16 with a 118 s ramp that 16 prompts of 64K at 1,100 tok/s explain: %+v, want not front-end-bound", b)
	}
	// The same first tokens for 16 prompts of 512 tokens (7.4 s at that
	// rate): request handling.
	short := recorded(512, 16, 118, 5, 60000, 115000, 30)
	run = &rundoc.Run{Cells: []rundoc.Cell{prefill, short}}
	b := diagnose.Cell(run, &run.Cells[1])
	if len(b) == 0 || b[0].Kind != diagnose.FrontEnd || !strings.Contains(b[0].Evidence, "explains at most 7447 ms for 16 prompts of 512 tokens") {
		t.Errorf("512×16 with 115 s to its last first token: %+v, want front-end-bound", b)
	}
	// Without the server's own prefill time, the client's prompt rate.
	prefill.ServerPromptTokS = 0
	run = &rundoc.Run{Cells: []rundoc.Cell{prefill, short}}
	if b := diagnose.Cell(run, &run.Cells[1]); len(b) == 0 || !strings.Contains(b[0].Evidence, "prompt rate (950 tok/s at 64K)") {
		t.Errorf("client's prompt rate: %+v", b)
	}
}

// TestDemoSameBottlenecksAtAnyWindow runs the same small matrix on the
// simulator's default (RTX 3060) profile with 30 s windows and with auto
// ones, and both name the same bottleneck in every decode cell: the
// ramps of 16K×16 (about 26 s of the card's time, the intake of sixteen
// 16K requests) outlast an auto window and are still not front end.
func TestDemoSameBottlenecksAtAnyWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("two demo runs of 30 s and auto windows; skipped with -short")
	}
	// Speed 10: a 30 s window is 3 s of real time, and a busy machine's
	// tens of milliseconds of lag stay well under the second of card time
	// the front-end rule's floor leaves. A machine busier still makes the
	// client late (the cell says it could not keep up, and its ramp is the
	// client's, not the card's): the pair is measured again at 4×.
	var runs map[string]*rundoc.Run
	for _, speed := range []float64{10, 4} {
		runs = demoWindows(t, speed)
		if late := lateCells(runs); len(late) > 0 {
			t.Logf("at %g× the client could not keep up in %v: again at a lower speed", speed, late)
			continue
		}
		// The case under test: 16K×16's ramp outlasts its auto window. A
		// busy machine once held that window open to its 30 s limit (ramp
		// 24.4 s): measured again, slower, rather than not tested.
		if r := runs[rundoc.WindowAuto].Find(rundoc.PhaseDecode, 16384, 16); r != nil && r.RampS <= r.MeasuredS {
			t.Logf("at %g× 16K×16's auto window (%.1f s) outlasted its ramp (%.1f s): again at a lower speed", speed, r.MeasuredS, r.RampS)
			continue
		}
		break
	}
	fixed, auto := firstKinds(runs[rundoc.WindowFixed]), firstKinds(runs[rundoc.WindowAuto])
	if len(fixed) != 4 {
		t.Fatalf("30 s run: %d decode cells, want 4", len(fixed))
	}
	for cell, k := range fixed {
		if auto[cell] != k {
			t.Errorf("%s: 30 s windows name %q, auto %q: want the same bottleneck", cell, k, auto[cell])
		}
	}
	if fixed["16K×16"] == diagnose.FrontEnd {
		t.Errorf("bottlenecks %v: want 16K×16, whose ramp is the intake of sixteen 16K prompts, not front-end-bound", fixed)
	}
	if r := runs[rundoc.WindowAuto].Find(rundoc.PhaseDecode, 16384, 16); r == nil || r.RampS <= r.MeasuredS {
		t.Errorf("16K×16 auto: %+v: want a ramp longer than the window, the case the rule must not call front end", r)
	}
}

// demoWindows runs the small matrix at speed with 30 s and auto windows.
func demoWindows(t *testing.T, speed float64) map[string]*rundoc.Run {
	t.Helper()
	runs := map[string]*rundoc.Run{}
	for _, window := range []string{rundoc.WindowFixed, rundoc.WindowAuto} {
		cfg := sim.DefaultConfig()
		cfg.Speed, cfg.Seed = speed, 7
		plan := rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 16}, PrefillContexts: []int{16384},
			DurationS: 30, MaxOutput: rundoc.DefaultMaxOutput, Window: window}
		if window == rundoc.WindowAuto {
			plan.Precision = rundoc.DefaultPrecision
		}
		run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: noGPU, NoTelemetry: true})
		if err != nil {
			t.Fatal(err)
		}
		runs[window] = run
		for i := range run.Cells {
			c := run.Cells[i]
			if c.Phase != rundoc.PhaseDecode {
				continue
			}
			t.Logf("%g× %s %s: %s, ramp %.1f s, window %.1f s, TTFT %.0f/%.0f ms, %v", speed, window, c.Name(),
				c.Status, c.RampS, c.MeasuredS, c.TTFTMs, c.TTFTP99Ms, diagnose.Cell(run, &c))
		}
	}
	return runs
}

// lateCells names the decode cells of runs whose client could not keep
// up with the simulator (they say so).
func lateCells(runs map[string]*rundoc.Run) []string {
	var late []string
	for window, r := range runs {
		for _, c := range r.Cells {
			if c.Phase == rundoc.PhaseDecode && strings.Contains(c.Reason, "could not keep up") {
				late = append(late, window+" "+c.Name())
			}
		}
	}
	return late
}
