package sim

import (
	"math"
	"testing"
)

// The tests in this file show the direction and the rough size of each
// vLLM flag's effect on a benchmark of the default profile (issue 13: the
// demo tuner shows them). Each runs decode cells the way the runner does,
// in virtual time (harness_test.go), with and without the flag. The sizes
// asked for come from the memory arithmetic or the time model, never from a
// previous run's output.

// cellWith runs one decode cell (30 s window, M = 8192) on a fresh default
// engine started with the given vLLM flags.
func cellWith(t *testing.T, ctx, n int, args ...string) (cellResult, *harness) {
	t.Helper()
	cfg, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 1
	h := newHarness(t, cfg)
	return h.decode(ctx, n, 30, 8192), h
}

// An 8-bit KV cache halves the bytes per token, so twice the tokens fit:
// 0 × 64 (64 × 8,192 = 524,288 tokens) is over the 431,632 of the 16-bit
// cache and runs in the 8-bit one, at a higher total rate than 0 × 32.
func TestFlagKVCacheDtypeFP8(t *testing.T) {
	auto, ha := cellWith(t, 0, 64)
	fp8, hf := cellWith(t, 0, 64, "--kv-cache-dtype", "fp8")
	if r := float64(hf.kv.tokens) / float64(ha.kv.tokens); math.Abs(r-2) > 0.001 {
		t.Errorf("fp8 capacity %d is %.3f× the 16-bit %d, want 2×", hf.kv.tokens, r, ha.kv.tokens)
	}
	if auto.status != "Over capacity" || fp8.status != "Valid" {
		t.Fatalf("0×64: %s with a 16-bit cache, %s with fp8; want Over capacity, then Valid", auto.status, fp8.status)
	}
	half, _ := cellWith(t, 0, 32, "--kv-cache-dtype", "fp8")
	// Twice the streams share each step, so the total rate rises, but far
	// less than twice: each step grows with the batch, and the last of 64
	// requests passes the serial API server only after about 10 s.
	if r := fp8.totalTokS / half.totalTokS; r < 1.1 || r > 1.8 {
		t.Errorf("0×64 gives %.1f tok/s, %.2f× the %.1f of 0×32; want 1.1–1.8×", fp8.totalTokS, r, half.totalTokS)
	}
}

// The KV cache is what gpu_memory_utilization leaves after weights,
// activations and the rest: (u × 12 − 7.507) GiB on the default card, so
// 0.8 leaves 64% of the cache of 0.9 and 0.95 leaves 118%.
func TestFlagGPUMemoryUtilization(t *testing.T) {
	p := DefaultProfile()
	fixed := p.WeightsGiB + p.ActivationGiB + p.OtherGiB
	base, hb := cellWith(t, 16384, 16)
	for _, tc := range []struct {
		util   string
		u      float64
		status string
	}{{"0.8", 0.8, "Over capacity"}, {"0.95", 0.95, "Valid"}} {
		got, h := cellWith(t, 16384, 16, "--gpu-memory-utilization", tc.util)
		want := (tc.u*p.GPUMemoryGiB - fixed) / (0.9*p.GPUMemoryGiB - fixed)
		if r := float64(h.kv.tokens) / float64(hb.kv.tokens); math.Abs(r-want) > 0.002 {
			t.Errorf("utilisation %s: capacity %d is %.3f× the default, want %.3f×", tc.util, h.kv.tokens, r, want)
		}
		// 16K × 16 needs 393,216 tokens: 0.8 leaves 274,624, too few.
		if got.status != tc.status {
			t.Errorf("utilisation %s: 16K×16 is %s, want %s", tc.util, got.status, tc.status)
		}
	}
	if base.status != "Valid" {
		t.Errorf("16K×16 at the default utilisation is %s, want Valid", base.status)
	}
}

// --max-num-seqs caps the running batch: with 8, 32 streams at context 0
// run 8 at a time, the other 24 wait (their requests of 8,192 tokens do not
// finish in the window), the cell reads "Requests queued" and its rate is
// that of 8 streams.
func TestFlagMaxNumSeqs(t *testing.T) {
	capped, _ := cellWith(t, 0, 32, "--max-num-seqs", "8")
	free, _ := cellWith(t, 0, 32)
	eight, _ := cellWith(t, 0, 8)
	if capped.status != "Requests queued" || capped.waitingMax != 24 {
		t.Errorf("0×32 with 8 seqs: %s with up to %d waiting, want Requests queued with 24", capped.status, capped.waitingMax)
	}
	if free.status != "Valid" || free.waitingMax > 1 {
		t.Errorf("0×32 with the default 256 seqs: %s with up to %d waiting, want Valid", free.status, free.waitingMax)
	}
	if r := capped.totalTokS / eight.totalTokS; r < 0.9 || r > 1.1 {
		t.Errorf("capped at 8: %.1f tok/s, %.2f× the %.1f of 8 streams; want within 10%%", capped.totalTokS, r, eight.totalTokS)
	}
	if capped.totalTokS > 0.5*free.totalTokS {
		t.Errorf("capped at 8: %.1f tok/s, not well below the %.1f of 32 running", capped.totalTokS, free.totalTokS)
	}
}

// --max-num-batched-tokens trades time to first token for inter-token
// latency. While a fresh 32K prompt is prefilled, 4 streams keep decoding:
// a small budget cuts the prompt into many chunks (each step pays the fixed
// StepBaseS again, and each chunk's attention reads the whole prefix so
// far) but keeps the decoders' steps short; a large one finishes the prompt
// sooner and stalls the decoders for whole seconds per step.
func TestFlagMaxNumBatchedTokens(t *testing.T) {
	type result struct{ ttft, itl float64 }
	measure := func(budget int) result {
		p := DefaultProfile()
		// The long prompt's intake stalls the decoders for the same time
		// whatever the budget (APIStallShare): left out, so that the worst
		// gap is the chunk's.
		p.APIStallShare = 0
		c := newCore(p, limits{maxNumSeqs: 256, maxNumBatchedTokens: budget, prefixCaching: true, blockSize: 16}, 30000)
		var decoders []*seq
		for i := range 4 {
			d := req("d", seqTokens(8, uint32(i+1)), 100000)
			c.add(d, 0)
			decoders = append(decoders, d)
		}
		for decoders[3].output < 10 {
			next, _ := c.nextEvent()
			c.idleUntil(next)
			c.step()
		}
		long := req("long", seqTokens(32768, 99), 1)
		c.add(long, c.now)
		// The worst gap between two tokens of a decoder while the prompt is
		// prefilled is what a user of the running streams notices.
		last, worst := c.now, 0.0
		for long.state != stateDone {
			next, _ := c.nextEvent()
			c.idleUntil(next)
			for _, e := range c.step() {
				if e.s == decoders[0] {
					worst = math.Max(worst, c.now-last)
					last = c.now
				}
			}
		}
		return result{long.firstTokenAt - long.arrival, worst}
	}
	small, def, large := measure(512), measure(2048), measure(8192)
	t.Logf("budget 512: TTFT %.2fs, worst ITL %.3fs; 2048: %.2fs, %.3fs; 8192: %.2fs, %.3fs",
		small.ttft, small.itl, def.ttft, def.itl, large.ttft, large.itl)
	if !(small.ttft > def.ttft && def.ttft > large.ttft) {
		t.Errorf("TTFT does not fall as the budget grows: %.2f, %.2f, %.2f s", small.ttft, def.ttft, large.ttft)
	}
	// 64 chunks instead of 4 add 60 × StepBaseS (1.2 s) to a prefill of
	// about 22 s: a few to 15 percent, not a factor.
	if r := small.ttft / large.ttft; r < 1.03 || r > 1.15 {
		t.Errorf("TTFT with 512 is %.3f× that with 8192, want 1.03–1.15×", r)
	}
	// The worst step holds a whole chunk at the end of the prompt, so the
	// stall grows about with the chunk: 16× the chunk, 8–16× the stall.
	if !(small.itl < def.itl && def.itl < large.itl) {
		t.Errorf("worst ITL does not grow with the budget: %.3f, %.3f, %.3f s", small.itl, def.itl, large.itl)
	}
	if r := large.itl / small.itl; r < 8 || r > 16 {
		t.Errorf("worst ITL with 8192 is %.1f× that with 512, want 8–16×", r)
	}
}

// Prefix caching is what makes a decode window's TTFT short: its prompts
// were sent once in the warm-up. Without it every request of the cell
// prefills its 16K prompt again (about 8 s on the default card instead of
// about 1.3 s). The window opens at steady state, after that prefill, so
// the loss shows in the TTFT and the ramp, not in the steady rate.
func TestFlagEnablePrefixCaching(t *testing.T) {
	on, _ := cellWith(t, 16384, 1)
	off, _ := cellWith(t, 16384, 1, "--no-enable-prefix-caching")
	if on.prefixHitPercent < 99 || off.prefixHitPercent != 0 {
		t.Errorf("prefix hits %.1f%% with caching, %.1f%% without; want ≥ 99%% and 0", on.prefixHitPercent, off.prefixHitPercent)
	}
	if r := off.ttftMs / on.ttftMs; r < 4 || r > 10 {
		t.Errorf("TTFT %.0f ms without caching is %.1f× the %.0f ms with it, want 4–10×", off.ttftMs, r, on.ttftMs)
	}
	if off.rampS <= on.rampS {
		t.Errorf("the ramp lasts %.0f s without caching and %.0f s with it, want longer without", off.rampS, on.rampS)
	}
	if r := off.totalTokS / on.totalTokS; r < 0.97 || r > 1.03 {
		t.Errorf("%.1f tok/s without caching is %.2f× the %.1f with it, want the same steady rate (0.97–1.03×)", off.totalTokS, r, on.totalTokS)
	}
}

// --max-model-len bounds prompt + output: at 32K the 32K decode cell
// (32,768 + 8,192 tokens) exceeds it while the 16K cell still runs. It
// leaves the KV cache alone (vLLM sizes the cache from memory).
func TestFlagMaxModelLen(t *testing.T) {
	long, hl := cellWith(t, 32768, 1, "--max-model-len", "32K")
	short, _ := cellWith(t, 16384, 1, "--max-model-len", "32K")
	_, hd := cellWith(t, 0, 1)
	if long.status != "Exceeds model length" || short.status != "Valid" {
		t.Errorf("max-model-len 32K: 32K cell %s, 16K cell %s; want Exceeds model length and Valid", long.status, short.status)
	}
	if hl.kv.tokens != hd.kv.tokens {
		t.Errorf("max-model-len changed the KV capacity from %d to %d", hd.kv.tokens, hl.kv.tokens)
	}
}
