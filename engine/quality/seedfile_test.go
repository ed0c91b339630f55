package quality

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedRunRow is a run of a seed report as llm_decode_bench.py 0.4.29 writes
// it (asdict(CompletionStatsRun)): every field, so the reader meets the
// real layout, not just the fields it reads.
func seedRunRow(idx int, item, cat string, correct *bool, tokens int, label, detail string, hitMax bool) map[string]any {
	return map[string]any{
		"run_index": idx, "phase": "profile", "concurrency": 8, "ok": true, "correct": correct,
		"completion_tokens": tokens, "prompt_tokens": 120, "elapsed": 1.5, "gen_elapsed": 1.2, "ttft": 0.05,
		"time_to_second_token": 0.06, "gen_tok_s": 80.0, "e2e_tok_s": 70.0, "finish_reason": map[bool]string{true: "length", false: "stop"}[hitMax],
		"final_answer": "Answer: B", "score_label": label, "score_detail": detail, "parsed_answer": "B",
		"output_excerpt": "", "output_text": "", "reasoning_text": "", "content_text": "", "error": "",
		"hit_max_tokens": hitMax, "estimated_tokens": false, "cancelled": false,
		"item_id": item, "category": cat, "expected_answer": "B",
	}
}

// writeSeedReport writes a completion-stats report in the seed tool's
// layout (run_completion_stats_benchmark's report) to dir/name.
func writeSeedReport(t *testing.T, dir, name, profile, sha string, runs []map[string]any) string {
	t.Helper()
	report := map[string]any{
		"metadata": map[string]any{
			"version": "0.4.29", "mode": "completion_stats", "interrupted": false, "server": "http://user:pw@10.0.0.5:8000",
			"engine": "vllm", "model": "Qwen/Qwen3-8B", "test_profile": profile, "timestamp": "2026-05-01T12:34:56.123456",
			"max_tokens": 131072, "temperature": 0.0, "profile_scorer": "dataset_mc_letter",
			"dataset": "mmlu_pro_1000", "dataset_sha256": sha, "dataset_items_total": 1000,
		},
		"selected_concurrency": 8, "selected_summary": map[string]any{}, "all_summary": map[string]any{},
		"level_summaries": []any{}, "accuracy": map[string]any{}, "category_summaries": []any{}, "wrong_runs": []any{},
		"runs": runs, "methodology": map[string]any{"name": "MMLU-Pro accuracy benchmark"},
	}
	data, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// seedMcNemarExact is the seed tool's mcnemar_exact_p computed exactly,
// with big integers and rationals: min(1, 2·Σ_{i≤min(b,c)} C(b+c, i) /
// 2^(b+c)). It shares nothing with McNemarExact's log-space sum.
func seedMcNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	tail := new(big.Int)
	for i := 0; i <= min(b, c); i++ {
		tail.Add(tail, new(big.Int).Binomial(int64(n), int64(i)))
	}
	p := new(big.Rat).SetFrac(new(big.Int).Mul(tail, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	if p.Cmp(big.NewRat(1, 1)) > 0 {
		return 1
	}
	f, _ := p.Float64()
	return f
}

// Two seed-tool reports of the same profile with known flips: importing
// and comparing them gives the seed tool's own paired comparison, the
// exact McNemar p computed independently here.
func TestSeedReportsPairLikeTheSeedTool(t *testing.T) {
	T, F := true, false
	dir := t.TempDir()
	const sha = "a229ed37f28bea012bf08e81d8ae3358dda17ef7370dca360f632952e3bdcaca"
	cats := []string{"biology", "law", "math"}
	var base, cand []map[string]any
	// 60 paired items: 40 right in both, 10 lost (right only in the
	// baseline: b), 1 gained (c), 9 wrong in both.
	wantB, wantC := 0, 0
	var baseTok, candTok float64
	lostByCat := map[string]int{}
	for i := range 60 {
		id, cat := fmt.Sprintf("mmlupro-%d", 100+i), cats[i%3]
		bc, cc := i < 50, i < 40 || i == 50
		if bc && !cc {
			wantB++
			lostByCat[cat]++
		}
		if !bc && cc {
			wantC++
		}
		bt, ct := 300+i, 330+2*i
		baseTok += float64(bt)
		candTok += float64(ct)
		label, detail, hit := "exact", "exact", false
		if !cc {
			label, detail = "fail", "expected B, got C"
		}
		if i == 45 { // a lost item the candidate never answered: cut at max_tokens
			label, detail, hit = "truncated", "no answer: hit max_tokens limit", true
		}
		if i == 46 {
			label, detail = "fail", "unparseable"
		}
		base = append(base, seedRunRow(i+1, id, cat, map[bool]*bool{true: &T, false: &F}[bc], bt, map[bool]string{true: "exact", false: "fail"}[bc], "exact", false))
		cand = append(cand, seedRunRow(i+1, id, cat, map[bool]*bool{true: &T, false: &F}[cc], ct, label, detail, hit))
	}
	if wantB != 10 || wantC != 1 {
		t.Fatalf("the construction has b=%d c=%d", wantB, wantC)
	}
	// What the seed tool leaves out or replaces: the prefill scout (no
	// item, no score), a cancelled run (correct null), an item scored only
	// in the candidate, and an item asked twice in the baseline whose
	// later run counts (its earlier run said wrong).
	base = append([]map[string]any{seedRunRow(0, "", "", nil, 1, "", "", false), seedRunRow(61, "mmlupro-100", "biology", &F, 999, "fail", "expected B, got C", false)}, base...)
	base = append(base, seedRunRow(70, "mmlupro-500", "law", nil, 0, "cancelled", "", false))
	cand = append(cand, seedRunRow(71, "mmlupro-900", "math", &T, 50, "exact", "exact", false))
	bp := writeSeedReport(t, dir, "base.json", "mmlu-pro", sha, base)
	cp := writeSeedReport(t, dir, "cand.json", "mmlu-pro", sha, cand)

	read := func(p string) *Result {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := Read(f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	b, c := read(bp), read(cp)
	if b.Source != "llm-inference-bench 0.4.29" || b.Probe != "mmlu-pro" || b.Dataset.SHA256 != sha || strings.Contains(b.Endpoint, "pw") || len(b.Items) != 60 || len(c.Items) != 61 {
		t.Fatalf("imported: %+v (%d and %d items)", b, len(b.Items), len(c.Items))
	}
	cmp, err := Compare(b, c)
	if err != nil {
		t.Fatal(err)
	}
	wantP := seedMcNemarExact(10, 1)
	if cmp.N != 60 || cmp.CandidateOnly != 1 || cmp.BaselineOnly != 0 || cmp.RightOnlyBaseline != 10 || cmp.RightOnlyCandidate != 1 {
		t.Fatalf("pairs: %+v", cmp)
	}
	if math.Abs(cmp.McNemarP-wantP) > 1e-12*wantP || !cmp.Significant {
		t.Errorf("McNemar p = %.15g, the seed tool's formula gives %.15g", cmp.McNemarP, wantP)
	}
	t.Logf("b=10 c=1 over 60 paired items: p = %.6g (seed formula %.6g)", cmp.McNemarP, wantP)
	// delta_pp = (candidate_correct − baseline_correct)/paired·100.
	if want := 100 * float64(41-50) / 60; math.Abs(cmp.DeltaPoints-want) > 1e-9 {
		t.Errorf("delta %.4f, want %.4f", cmp.DeltaPoints, want)
	}
	if cmp.Baseline.Correct != 50 || cmp.Candidate.Correct != 41 || cmp.Candidate.Truncated != 1 || cmp.Candidate.Unparseable != 1 || cmp.Candidate.HitMax != 1 {
		t.Errorf("accuracies: %+v / %+v", cmp.Baseline, cmp.Candidate)
	}
	if w := Wilson(50, 60); cmp.Baseline.CI95 != w {
		t.Errorf("Wilson %+v, want %+v", cmp.Baseline.CI95, w)
	}
	if want := (candTok / 60) / (baseTok / 60); math.Abs(cmp.Tokens.Ratio-want) > 1e-12 {
		t.Errorf("token ratio %.6f, want %.6f", cmp.Tokens.Ratio, want)
	}
	if len(cmp.Categories) != 3 {
		t.Fatalf("categories %+v", cmp.Categories)
	}
	for _, k := range cmp.Categories {
		if k.N != 20 || k.Lost != lostByCat[k.Name] || math.Abs(k.McNemarP-seedMcNemarExact(k.Lost, k.Gained)) > 1e-12 {
			t.Errorf("category %+v, lost want %d", k, lostByCat[k.Name])
		}
	}

	// Refused: another profile, another data file, a RigBench result.
	other := writeSeedReport(t, dir, "gsm.json", "gsm8k", sha, cand)
	if _, err := Compare(b, read(other)); err == nil || !strings.Contains(err.Error(), "the baseline measured mmlu-pro and this probe gsm8k") {
		t.Errorf("another profile: %v", err)
	}
	moved := writeSeedReport(t, dir, "sha.json", "mmlu-pro", strings.Repeat("1", 64), cand)
	if _, err := Compare(b, read(moved)); err == nil || !strings.Contains(err.Error(), "data set (sha256") {
		t.Errorf("another data file: %v", err)
	}
	native := &Result{Kind: Kind, Probe: "mmlu-pro", Profile: b.Profile, Dataset: b.Dataset, Items: b.Items}
	if _, err := Compare(b, native); err == nil || !strings.Contains(err.Error(), "llm-inference-bench 0.4.29's and the other RigBench's") {
		t.Errorf("a RigBench result: %v", err)
	}
	noItems := writeSeedReport(t, dir, "hotel.json", "hotel-lights", "", []map[string]any{seedRunRow(1, "", "", &T, 30, "exact", "exact", false)})
	if f, _ := os.Open(noItems); f != nil {
		_, err := Read(f)
		f.Close()
		if err == nil || !strings.Contains(err.Error(), "holds no scored data-set items") {
			t.Errorf("a profile without items: %v", err)
		}
	}
}

func TestReadRefusesOtherShapes(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`[1,2]`, "this is not a quality result"},
		{`{"kind":"rigbench.run/v1"}`, `a "rigbench.run/v1" document, neither a RigBench quality result`},
		{`{"metadata":{"mode":"decode"},"runs":[]}`, "neither a RigBench quality result"},
		{`{"metadata":{"mode":"completion_stats"},"runs":[{"correct":"yes"}]}`, "runs that are not in its layout"},
		{`{"kind":"rigbench.quality/v1","items":{}}`, "document is damaged"},
	} {
		if _, err := Read(strings.NewReader(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.data, err, tc.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	T := true
	seed, _ := json.Marshal(map[string]any{"metadata": map[string]any{"mode": "completion_stats", "test_profile": "gsm8k", "version": "0.4.29"},
		"runs": []any{seedRunRow(1, "gsm8k-0001", "", &T, 10, "exact", "exact", false)}})
	f.Add(seed)
	var own bytes.Buffer
	(&Result{Kind: Kind, Probe: "gsm8k:1", Items: []Item{{ID: "gsm8k-0001", Correct: true}}}).Write(&own)
	f.Add(own.Bytes())
	f.Add([]byte(`{"metadata":{"mode":"completion_stats"},"runs":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("a refusal of more than one line: %q", err)
			}
			return
		}
		if r.Kind != Kind {
			t.Fatalf("read a result of kind %q", r.Kind)
		}
		if r.Source != "" && len(r.Items) == 0 {
			t.Fatalf("an imported report without items was read")
		}
	})
}
