package quality_test

import (
	"context"
	"math"
	"net/http/httptest"
	"testing"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/sim"
)

// simEndpoint starts the simulator with vLLM flags on loopback and returns
// it with a client.
func simEndpoint(t *testing.T, args ...string) (*sim.Server, *client.Client) {
	t.Helper()
	cfg, err := sim.ParseArgs(append([]string{"--speed", "inf"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// A KV-cache sweep on the simulator: every item's score, the flips, the
// Wilson intervals and the McNemar p match the simulator's truth exactly;
// the 4-bit cache's loss is significant, the 8-bit one's is not.
func TestTaskProbeMatchesSimulatorTruth(t *testing.T) {
	t.Parallel()
	ds, err := quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(200))
	if err != nil {
		t.Fatal(err)
	}
	probe := quality.TaskProbe{Name: "gsm8k:200", Dataset: ds, N: 200}
	run := func(args ...string) (*sim.Server, *quality.Result) {
		s, c := simEndpoint(t, args...)
		r, err := probe.Run(context.Background(), c, "")
		if err != nil {
			t.Fatal(err)
		}
		return s, r
	}
	baseSim, base := run("--kv-cache-dtype", "auto")
	truthCorrect := func(s *sim.Server, it quality.DatasetItem, got quality.Item) bool {
		ok, truncated, readable, tokens := s.AnswerTruth(quality.TaskPrompt(it.Question), quality.DefaultTaskMaxTokens)
		if !readable {
			t.Fatalf("the simulator cannot read item %s", it.ID)
		}
		if got.HitMaxTokens != truncated || got.CompletionTokens != tokens || got.Truncated != truncated || got.Unparseable {
			t.Fatalf("item %s: %+v, truth truncated %v, %d tokens", it.ID, got, truncated, tokens)
		}
		return ok
	}
	for _, tc := range []struct {
		dtype       string
		significant bool
	}{{"fp8", false}, {"int4_per_token_head", true}} {
		candSim, cand := run("--kv-cache-dtype", tc.dtype)
		var right, b, c, truncated int
		var baseTok, candTok float64
		for i, it := range ds.Subset(200) {
			bt, ct := truthCorrect(baseSim, it, base.Items[i]), truthCorrect(candSim, it, cand.Items[i])
			baseTok += float64(base.Items[i].CompletionTokens)
			candTok += float64(cand.Items[i].CompletionTokens)
			if cand.Items[i].HitMaxTokens {
				truncated++
			}
			if base.Items[i].Correct != bt || cand.Items[i].Correct != ct {
				t.Fatalf("%s item %s: scored %v/%v, truth %v/%v", tc.dtype, it.ID, base.Items[i].Correct, cand.Items[i].Correct, bt, ct)
			}
			if ct {
				right++
			}
			if bt && !ct {
				b++
			}
			if !bt && ct {
				c++
			}
		}
		cmp, err := quality.Compare(base, cand)
		if err != nil {
			t.Fatal(err)
		}
		if cmp.RightOnlyBaseline != b || cmp.RightOnlyCandidate != c {
			t.Errorf("%s: flips %d/%d, truth %d/%d", tc.dtype, cmp.RightOnlyBaseline, cmp.RightOnlyCandidate, b, c)
		}
		if cmp.McNemarP != quality.McNemarExact(b, c) || cmp.Candidate.CI95 != quality.Wilson(right, 200) {
			t.Errorf("%s: p %g CI %v, truth p %g CI %v", tc.dtype, cmp.McNemarP, cmp.Candidate.CI95, quality.McNemarExact(b, c), quality.Wilson(right, 200))
		}
		if cmp.Significant != tc.significant {
			t.Errorf("%s: %s, want significant = %v", tc.dtype, cmp.Verdict(), tc.significant)
		}
		t.Logf("%s: %s (Δ %+.1f [%+.1f, %+.1f])", tc.dtype, cmp.Verdict(), cmp.DeltaPoints, cmp.DeltaCI95.Lo, cmp.DeltaCI95.Hi)
		if math.Abs(cmp.Tokens.Ratio-candTok/baseTok) > 1e-12 || cmp.Candidate.HitMax != truncated {
			t.Errorf("%s: token ratio %g, truth %g; %d hit max_tokens, truth %d", tc.dtype, cmp.Tokens.Ratio, candTok/baseTok, cmp.Candidate.HitMax, truncated)
		}
		// The profile's stated inflation, less what max_tokens cut.
		if want := 1 + candSim.QualityLoss().LengthInflation; cmp.Tokens.Ratio > want+0.01 || cmp.Tokens.Ratio < want-0.05 {
			t.Errorf("%s: token ratio %.3f, the profile states %.3f", tc.dtype, cmp.Tokens.Ratio, want)
		}
	}
}

// The multiple-choice probe on the demo's MMLU-Pro-layout set: the
// simulator answers "Answer: <letter>", scored by the seed tool's letter
// rule; every item's score, the flips, the exact p and the per-category
// flips match the simulator's truth.
func TestChoiceProbeMatchesSimulatorTruth(t *testing.T) {
	t.Parallel()
	ds, err := quality.ParseChoice(quality.DemoChoiceName, quality.LayoutMMLUPro, quality.DemoChoice(quality.DemoItems))
	if err != nil {
		t.Fatal(err)
	}
	probe := quality.TaskProbe{Name: "mmlu-pro:300", Dataset: ds, N: 300}
	sims := map[string]*sim.Server{}
	res := map[string]*quality.Result{}
	for _, dt := range []string{"auto", "int4_per_token_head"} {
		s, c := simEndpoint(t, "--kv-cache-dtype", dt)
		r, err := probe.Run(context.Background(), c, "")
		if err != nil {
			t.Fatal(err)
		}
		sims[dt], res[dt] = s, r
	}
	var b, c int
	lost := map[string]int{}
	for i, it := range ds.Subset(300) {
		truth := func(dt string) bool {
			ok, truncated, readable, _ := sims[dt].AnswerTruth(quality.ItemPrompt(quality.ScoreLetter, it), quality.DefaultTaskMaxTokens)
			got := res[dt].Items[i]
			if !readable || got.Correct != ok || got.Truncated != truncated || got.Unparseable || (!truncated && len(got.Got) != 1) {
				t.Fatalf("%s item %s: %+v, truth right %v, truncated %v, readable %v", dt, it.ID, got, ok, truncated, readable)
			}
			return ok
		}
		bt, ct := truth("auto"), truth("int4_per_token_head")
		if bt && !ct {
			b++
			lost[it.Category]++
		}
		if !bt && ct {
			c++
		}
	}
	cmp, err := quality.Compare(res["auto"], res["int4_per_token_head"])
	if err != nil {
		t.Fatal(err)
	}
	if cmp.RightOnlyBaseline != b || cmp.RightOnlyCandidate != c || cmp.McNemarP != quality.McNemarExact(b, c) || !cmp.Significant {
		t.Errorf("flips %d/%d p %g, truth %d/%d p %g", cmp.RightOnlyBaseline, cmp.RightOnlyCandidate, cmp.McNemarP, b, c, quality.McNemarExact(b, c))
	}
	if len(cmp.Categories) < 2 {
		t.Fatalf("categories: %+v", cmp.Categories)
	}
	for _, k := range cmp.Categories {
		if k.Lost != lost[k.Name] {
			t.Errorf("category %s lost %d, truth %d", k.Name, k.Lost, lost[k.Name])
		}
	}
	t.Logf("mmlu-pro:300 on the demo, int4 against auto: %s", cmp.Verdict())
}

// Answers cut by max_tokens before any answer count as truncated, not
// unparseable (the seed tool's labels).
func TestTaskProbeCountsTruncation(t *testing.T) {
	t.Parallel()
	ds, _ := quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(20))
	_, c := simEndpoint(t)
	r, err := quality.TaskProbe{Name: "gsm8k:20", Dataset: ds, MaxTokens: 16}.Run(context.Background(), c, "")
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Accuracy(); a.HitMax != 20 || a.Truncated != 20 || a.Unparseable != 0 || a.Correct != 0 {
		t.Errorf("max_tokens 16: %+v, want all 20 truncated", a)
	}
}

// The agreement probe tells a lossless launch from lossy ones, in the
// order of the profile's stated losses.
func TestAgreementProbeSeparatesLosses(t *testing.T) {
	t.Parallel()
	probe := quality.AgreementProbe{}
	run := func(args ...string) *quality.Result {
		_, c := simEndpoint(t, args...)
		r, err := probe.Run(context.Background(), c, "")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := run()
	same, err := quality.CompareAgreement(base, run("--kv-cache-dtype", "auto"))
	if err != nil {
		t.Fatal(err)
	}
	if same.PrefixShare != 1 || same.KL != 0 || same.Diverged != 0 {
		t.Errorf("lossless against itself: %+v", same)
	}
	fp8, _ := quality.CompareAgreement(base, run("--kv-cache-dtype", "fp8"))
	int4, _ := quality.CompareAgreement(base, run("--kv-cache-dtype", "int4_per_token_head"))
	t.Logf("fp8: agreement %.3f ± %.3f, KL %.5f ± %.5f; int4: agreement %.3f ± %.3f, KL %.5f ± %.5f",
		fp8.PrefixShare, fp8.PrefixShareCI95, fp8.KL, fp8.KLCI95, int4.PrefixShare, int4.PrefixShareCI95, int4.KL, int4.KLCI95)
	if !(int4.PrefixShare+int4.PrefixShareCI95 < fp8.PrefixShare-fp8.PrefixShareCI95) {
		t.Errorf("int4's agreement %.3f ± %.3f does not stand below fp8's %.3f ± %.3f", int4.PrefixShare, int4.PrefixShareCI95, fp8.PrefixShare, fp8.PrefixShareCI95)
	}
	if !(int4.KL-int4.KLCI95 > fp8.KL+fp8.KLCI95) || fp8.KL <= 0 {
		t.Errorf("KL: int4 %.5f ± %.5f, fp8 %.5f ± %.5f", int4.KL, int4.KLCI95, fp8.KL, fp8.KLCI95)
	}
}

func TestTopKL(t *testing.T) {
	p := map[string]float64{"a": math.Log(0.6), "b": math.Log(0.3)}
	if kl := quality.TopKL(p, p); kl != 0 {
		t.Errorf("KL(P‖P) = %g", kl)
	}
	// By hand: P = (0.6, 0.3, rest 0.1), Q = (0.3, 0.6, 0.1).
	q := map[string]float64{"a": math.Log(0.3), "b": math.Log(0.6)}
	want := 0.6*math.Log(2) + 0.3*math.Log(0.5)
	if kl := quality.TopKL(p, q); math.Abs(kl-want) > 1e-12 {
		t.Errorf("KL = %.12f, want %.12f", kl, want)
	}
}
