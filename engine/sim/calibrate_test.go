package sim

import (
	"testing"
)

// TestDefaultProfileMatchesReference is the virtual-time version of the
// reference test: the reference plan, run through the engine core the way
// the benchmark runner runs it, must give the reference's status in ≥ 90%
// of cells and land within ±10% of every Valid cell's total_tok_s and every
// prefill cell's prompt_tok_s (the reference test over HTTP allows ±15%;
// the margin is for the real clock). The side-by-side table is in the log.
//
// The cells that differ, and why: at 128K the reference reports "Requests
// queued" at N=1 and 2 with an avg_active below 1, which a client-side
// avg_active cannot produce with one stream and which vLLM's scheduler
// (a cached prompt, an idle engine) does not explain; the simulator serves
// them as Valid at the reference's throughput. At 248K the reference got no
// output in the window because its prompt was not cached (the warm-up of a
// 248K prompt takes about 12 minutes on that card); a runner that waits for
// the warm-up finds it cached here and gets tokens.
func TestDefaultProfileMatchesReference(t *testing.T) {
	ref := loadReference(t)
	got := runReferencePlan(t, DefaultConfig(), ref)
	table, match, worst, worstCell := compareReference(ref, got)
	t.Logf("reference plan, default profile, virtual time:\n%s", table)
	t.Logf("status match %.1f%%, worst throughput error %.1f%% (%s)", 100*match, 100*worst, worstCell)
	if match < 0.9 {
		t.Errorf("only %.1f%% of cells got the reference's status, want ≥ 90%%", 100*match)
	}
	if worst > 0.10 {
		t.Errorf("throughput off by %.1f%% at %s, want within ±10%%", 100*worst, worstCell)
	}
}

// TestVirtualPlanIsDeterministic runs part of the reference plan twice with
// the same seed: every figure must repeat exactly.
func TestVirtualPlanIsDeterministic(t *testing.T) {
	ref := loadReference(t)
	var part []refCell
	for _, r := range ref {
		if r.phase == "decode" && r.ctx <= 16384 || r.phase == "prefill" && r.ctx <= 16384 {
			part = append(part, r)
		}
	}
	cfg := DefaultConfig()
	cfg.Seed = 42
	a := runReferencePlan(t, cfg, part)
	b := runReferencePlan(t, cfg, part)
	if len(a) != len(part) {
		t.Fatalf("%d results for %d cells", len(a), len(part))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("cell %d differs between runs:\n%+v\n%+v", i, a[i], b[i])
		}
	}
	tokens := 0
	for _, r := range a {
		tokens += r.tokens
	}
	if tokens == 0 {
		t.Error("the plan produced no tokens")
	}
}
