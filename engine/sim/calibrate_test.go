package sim

import (
	"testing"
)

// TestDefaultProfileMatchesReference is the virtual-time version of the
// reference test (engine/bench's TestReferenceRun, which asks the same over
// HTTP): the reference plan, run through the engine core the way the
// benchmark runner runs it, must match the published run as issue 13 asks:
// every Valid cell's total_tok_s and every prefill cell's prompt_tok_s within
// 10%, the median TTFT of ≥ 90% of the Valid decode cells within 20% and of
// none worse than 35% (issue 35 raised it from 80%, with context 0 sent as
// the seed tool sends it), the per-request tok/s and TBT of every Valid decode
// cell within 15%, and the statuses of every cell but the three where
// the reference is the odd one out (docs/simulator.md explains each). The
// side-by-side table is in the log.
func TestDefaultProfileMatchesReference(t *testing.T) {
	ref := loadReference(t)
	got := runReferencePlan(t, DefaultConfig(), ref)
	table, sc := compareReference(ref, got)
	t.Logf("reference plan, default profile, virtual time:\n%s", table)
	t.Logf("%v", sc)
	checkReferenceScore(t, sc)
}

// referenceOddCells are the reference cells whose status no server
// behaviour explains (docs/simulator.md, "Where the reference is the odd
// one out"): the simulator is allowed to differ there and nowhere else.
var referenceOddCells = map[string]bool{
	"decode 131072×1": true, "decode 131072×2": true, "decode 253952×1": true,
}

// checkReferenceScore applies issue 13's criteria to a score.
func checkReferenceScore(t *testing.T, sc refScore) {
	t.Helper()
	for _, c := range sc.mismatched {
		if !referenceOddCells[c] {
			t.Errorf("%s does not get the reference's status", c)
		}
	}
	if sc.worstTokS > 0.10 {
		t.Errorf("throughput off by %.1f%% at %s, want within 10%%", 100*sc.worstTokS, sc.worstTokCell)
	}
	if sc.ttftWithin20 < 0.90 {
		t.Errorf("only %.0f%% of Valid decode cells have their median TTFT within 20%%, want ≥ 90%%", 100*sc.ttftWithin20)
	}
	if sc.worstTTFT > 0.35 {
		t.Errorf("median TTFT off by %.1f%% at %s, want none worse than 35%%", 100*sc.worstTTFT, sc.worstTTFTCell)
	}
	if sc.worstPerReq > 0.15 {
		t.Errorf("per-request tok/s or TBT off by %.1f%% at %s, want within 15%%", 100*sc.worstPerReq, sc.worstPerCell)
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
