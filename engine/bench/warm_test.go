package bench_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// llamaCPU is the llama-server personality at -np 4 -kvu on a card whose
// prompts compute at about 1,000 tok/s, as issue 35's real b9928 on a CPU
// did (the warm rate; a fresh server's first prompt computes at 0.72 of it).
func llamaCPU(t *testing.T, speed float64) sim.Config {
	cfg := tinyConfig(t, speed)
	cfg.Personality = sim.PersonalityLlama
	cfg.Llama = sim.LlamaSettings{CtxSize: 65536, Slots: 4, KVUnified: true}
	cfg.Profile.PrefillPerTokenS = 1e-3
	return cfg
}

// TestFirstPrefillIsWarm is issue 35 item 8 against the llama-server
// personality, whose fresh server computes its first prompt at 0.72 of the
// rate of every later one, as the real b9928 did: the run's first prefill
// cell reads like the same cell measured again on the now warm server,
// because a hidden warm-up request goes first. The server's own prompt
// rate (its prompt_seconds_total, in the card's time) is the same within
// 2%; RigBench's rate, which a loaded host's delays enter, within 15%. A
// cold first cell reads 28% lower in both.
func TestFirstPrefillIsWarm(t *testing.T) {
	_, c := startSim(t, llamaCPU(t, 2))
	plan := rundoc.Plan{PrefillContexts: []int{512}, DurationS: 5, Window: rundoc.WindowFixed, MaxOutput: 16, KVCapacityOverride: 65536}
	measure := func() *rundoc.Cell {
		run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p := run.Find(rundoc.PhasePrefill, 512, 1)
		if p == nil || p.Status != rundoc.StatusValid || p.ServerPromptTokS <= 0 {
			t.Fatalf("prefill 512: %+v", p)
		}
		return p
	}
	first, later := measure(), measure()
	t.Logf("first run: %.0f tok/s (server %.0f); again: %.0f (server %.0f)", first.PromptTokS, first.ServerPromptTokS, later.PromptTokS, later.ServerPromptTokS)
	if d := first.ServerPromptTokS/later.ServerPromptTokS - 1; math.Abs(d) > 0.02 {
		t.Errorf("the first prefill cell's prompts computed at %.0f tok/s by the server's timer, the same cell again at %.0f (%+.1f%%): the first measured a cold server",
			first.ServerPromptTokS, later.ServerPromptTokS, 100*d)
	}
	if d := first.PromptTokS/later.PromptTokS - 1; math.Abs(d) > 0.15 {
		t.Errorf("the first prefill cell reads %.0f tok/s, the same cell again %.0f (%+.1f%%)", first.PromptTokS, later.PromptTokS, 100*d)
	}
}

// TestSharedPromptInEverySlot is issue 35 item 8: on llama-server, whose
// slots cache apart, the decode warm-up puts the context's shared document
// in every slot the cell's streams take, so no stream computes it inside
// the ramp. The simulator's truth says so directly: every request of 8K×4
// with the cell's output length found all but the last token of its
// prompt in its slot's cache. The figures follow from the sim's model:
//
//   - per-request tok/s: with nothing to prefill in the ramp each stream
//     decodes at the batch's step rate from its first token, so 8K×4's
//     per-request figure is 8K×1's times step(1) / step(4), the decode step
//     of one and of four sequences at 8K (Profile's time model), and is
//     1 / step(4) itself, and total ÷ 4 within 10%. Slots computing prompts
//     beside the streams slowed every step of the ramp: the figure read
//     about half of total ÷ N, as on the real b9928.
func TestSharedPromptInEverySlot(t *testing.T) {
	cfg := llamaCPU(t, 10)
	// Decode steps of 39 ms (one stream at 8K) to 65 ms (four), so that a
	// simulator 10 times fast keeps its clock on a loaded host, and a batch
	// of four decodes visibly slower than one.
	cfg.Profile.StepBaseS, cfg.Profile.DecodePerContextTokenS = 0.03, 1e-6
	s, c := startSim(t, cfg)
	const ctx = 8192
	// Requests of 2,048 tokens outlast ramp and window, as the seed tool's
	// 8,192 do: each stream's first request is the one that ramped.
	plan := rundoc.Plan{Contexts: []int{ctx}, Concurrency: []int{1, 4}, DurationS: 10, Window: rundoc.WindowFixed,
		MaxOutput: 2048, KVCapacityOverride: 65536}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	one, four := run.Find(rundoc.PhaseDecode, ctx, 1), run.Find(rundoc.PhaseDecode, ctx, 4)
	for _, cell := range []*rundoc.Cell{one, four} {
		// On a busy host the simulator's handlers write several steps as
		// one chunk (at most 50 ms of card time apart, placed at its last
		// token), and a 25 tok/s stream's half-second spans then hold 9 or
		// 11 tokens instead of 10: the ± widens past 10% (8K×1 read 24.0 ±
		// 3.0 under -race beside other builds, every stamp 39 ms apart) and
		// the cell is Unreliable by its ± alone, while its figure stays on
		// the model. Such a cell is still held to the figures below.
		widened := cell != nil && cell.Status == rundoc.StatusUnreliable && strings.HasPrefix(cell.Reason, "± ")
		if cell == nil || cell.Status != rundoc.StatusValid && !widened {
			t.Fatalf("decode cell: %+v", cell)
		}
		t.Logf("8K×%d: total %.1f tok/s, per request %.1f, TTFT %.0f ms, ramp %.1f s", cell.Concurrency, cell.TotalTokS, cell.PerRequestTokS, cell.TTFTMs, cell.RampS)
	}
	// 8K×4's streams are the last 4 requests of more than one token (the
	// warm-up's come before them).
	var decodes []sim.RequestRecord
	for _, r := range s.Truth() {
		if r.PromptTokens >= ctx && r.OutputTokens() > 1 {
			decodes = append(decodes, r)
		}
	}
	slices.SortFunc(decodes, func(a, b sim.RequestRecord) int { return a.Arrived.Compare(b.Arrived) })
	if len(decodes) < 4 {
		t.Fatalf("%d decode requests in the simulator's truth, want 8K×4's 4 at least", len(decodes))
	}
	for _, r := range decodes[len(decodes)-4:] {
		if r.CachedTokens < r.PromptTokens-1 {
			t.Errorf("an 8K×4 stream computed %d of its %d prompt tokens: the warm-up left its slot without the shared document",
				r.PromptTokens-r.CachedTokens, r.PromptTokens)
		}
	}
	if t.Failed() {
		for _, r := range decodes {
			t.Logf("request %s: arrived %s (sim %.3f s), cached %d of %d, %d tokens out, first token sim %.3f s, cancelled %v, error %q",
				r.ID, r.Arrived.Format("15:04:05.000"), r.SimArrivedS, r.CachedTokens, r.PromptTokens, r.OutputTokens(), r.SimFirstTokenS, r.Cancelled, r.Error)
		}
	}
	p := cfg.Profile
	step := func(b float64) float64 {
		return p.StepBaseS + p.DecodePerSeqS*b + b*(p.DecodePerContextTokenS*ctx+p.DecodeContextQuadS*ctx*ctx)
	}
	// The two cells run at different moments of a host that may be
	// loaded, which slows the simulator's clock by up to 15% here and
	// there: 25% apart at most, where computing prompts in the ramp reads
	// half. Against the model itself the figure can only read low.
	want := one.PerRequestTokS * step(1) / step(4)
	if d := four.PerRequestTokS/want - 1; math.Abs(d) > 0.25 {
		t.Errorf("8K×4 per-request %.1f tok/s, want 8K×1's %.1f × step(1)/step(4) = %.1f (%+.0f%%)", four.PerRequestTokS, one.PerRequestTokS, want, 100*d)
	}
	if model := 1 / step(4); four.PerRequestTokS < 0.7*model || four.PerRequestTokS > 1.05*model {
		t.Errorf("8K×4 per-request %.1f tok/s, want the model's 1 / step(4) = %.1f (−30%%…+5%%; prompts computed in the ramp read −44%%)", four.PerRequestTokS, model)
	}
	if d := four.PerRequestTokS/(four.TotalTokS/4) - 1; math.Abs(d) > 0.10 {
		t.Errorf("8K×4 per-request %.1f tok/s against total ÷ 4 = %.1f (%+.0f%%)", four.PerRequestTokS, four.TotalTokS/4, 100*d)
	}
	// TTFT is not held to a bound: it is the host's clock, and a loaded
	// host delays the streams' intake by seconds (4.7 s once beside
	// stress and builds, against 246 ms idle), which a prompt computed
	// in the ramp (8,192 ms of card time) cannot be told apart from by
	// wall time alone. What the design guarantees is the simulator's
	// truth above: no 8K×4 stream computed its prompt.
}

// TestFailedCellRateOverItsLength is issue 35 item 8: a cell whose server
// went away mid-window is Failed, and its rate is over the time it lasted,
// not over the nominal window: total tok/s × measured_s is the tokens it
// counted (the real b9928 case read 73.6 tok/s for a cell that lasted
// 10.2 s of 20, 144.9 real).
func TestFailedCellRateOverItsLength(t *testing.T) {
	// Speed 2: the 20 s window lasts 10 real seconds, so the first
	// live-rate report (about a real second in) falls well inside it
	// however late a busy machine sends it; at speed 10 the window lasted
	// 2 real seconds and a report late by one closed it first (CI).
	_, hs, c := startSimServer(t, tinyConfig(t, 2))
	var once sync.Once
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2}, DurationS: 20, Window: rundoc.WindowFixed, MaxOutput: 1024}
	// Killed at the first live-rate report, a real second into the 10 s
	// window.
	r := &bench.Runner{Client: c, Plan: plan, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventCellProgress && e.LiveTokS > 0 {
			once.Do(func() { hs.Listener.Close(); hs.CloseClientConnections() })
		}
	})}
	run, _ := r.Run(context.Background())
	cell := run.Find(rundoc.PhaseDecode, 0, 2)
	if cell == nil || cell.Status != rundoc.StatusFailed {
		t.Fatalf("0×2: %+v, want Failed", cell)
	}
	t.Logf("0×2: %s, %d tokens in %.3f s: %.1f tok/s", cell.Status, cell.OutputTokens, cell.MeasuredS, cell.TotalTokS)
	if cell.MeasuredS <= 0 || cell.MeasuredS >= 0.9*plan.DurationS || cell.OutputTokens == 0 {
		t.Fatalf("0×2 lasted %.3f s of %.0f with %d tokens: the kill did not fall inside the window", cell.MeasuredS, plan.DurationS, cell.OutputTokens)
	}
	want := float64(cell.OutputTokens) / cell.MeasuredS
	if d := cell.TotalTokS/want - 1; math.Abs(d) > 0.01 {
		t.Errorf("0×2 reads %.1f tok/s; over the %.3f s it lasted it made %.1f (over the nominal %.0f s: %.1f)",
			cell.TotalTokS, cell.MeasuredS, want, plan.DurationS, float64(cell.OutputTokens)/plan.DurationS)
	}
}
