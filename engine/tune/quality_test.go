package tune_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// qualitySpec is the sweep: --kv-cache-dtype auto, fp8 and
// int4_per_token_head with --quality gsm8k:200, on a workload where a
// smaller KV cache holds more streams: a base with a KV cache of 22,688
// tokens (--gpu-memory-utilization 0.64 on the RTX 3060 profile) serves 4
// streams of 4K + 1K, fp8 doubles that to 8 and int4 to 16, so the lossy
// 4-bit cache is the fastest by capacity alone and the lossless 8-bit one
// the next, whatever the machine's load does to the figures.
func qualitySpec(t *testing.T) tune.Spec {
	plan := rundoc.Plan{Contexts: []int{4096}, Concurrency: []int{4, 8, 16}, DurationS: 3, MaxOutput: 1024}
	obj, err := tune.ParseObjective("most-streams@4K:30s", plan)
	if err != nil {
		t.Fatal(err)
	}
	var base vllm.LaunchConfig
	base.Set("--gpu-memory-utilization", "0.64")
	base.Set("--max-model-len", "16384")
	return tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.Grid, Plan: plan, Objective: obj, Target: tune.TargetDemo, Quality: "gsm8k:200",
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8,int4_per_token_head")}}
}

// demoProbe is gsm8k:200 on the demo's own item set, counting the servers
// it asks.
func demoProbe(t *testing.T, asked *atomic.Int32) (*quality.Dataset, func(context.Context, quality.Answerer, string) (*quality.Result, error)) {
	ds, err := quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(200))
	if err != nil {
		t.Fatal(err)
	}
	p := quality.TaskProbe{Name: "gsm8k:200", Dataset: ds, N: 200, Concurrency: 32}
	return ds, func(ctx context.Context, a quality.Answerer, model string) (*quality.Result, error) {
		asked.Add(1)
		return p.Run(ctx, a, model)
	}
}

// truth is what the simulator, launched with args, answers to each item:
// whether it is right (sim.Server.AnswerTruth, which needs no request).
func truth(t *testing.T, ds *quality.Dataset, args ...string) []bool {
	cfg, err := sim.ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []bool
	for _, it := range ds.Subset(200) {
		ok, _, readable, _ := s.AnswerTruth(quality.TaskPrompt(it.Question), quality.DefaultTaskMaxTokens)
		if !readable {
			t.Fatalf("the simulator cannot read item %s", it.ID)
		}
		out = append(out, ok)
	}
	return out
}

// TestQualitySweepPassesOverTheLossyVariant is issue 37's "done when" on
// the simulator, over real HTTP: the verdict recommends fp8, the fastest
// variant that keeps quality, and names int4 as faster but not
// recommended with its loss and p; every pairing's flips, McNemar p and
// Wilson interval equal the simulator's truth. A resume re-probes nothing.
func TestQualitySweepPassesOverTheLossyVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo sweep of three variants at speed 5 (about 20 s): skipped with -short (make test runs it)")
	}
	spec := qualitySpec(t)
	var asked atomic.Int32
	ds, probe := demoProbe(t, &asked)
	hist := &memHistory{runs: map[string]*rundoc.Run{}}
	var probing int
	r := &tune.Runner{Spec: spec, Target: demoTarget(5), Hardware: noGPU, QualityProbe: probe, Observers: hist.observe,
		Progress: func(p tune.Progress) {
			if p.Stage == "probing" {
				probing++
			}
		}}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 3 || probing != 3 {
		t.Fatalf("%d probes asked, %d probing reports; want one per variant (3)", asked.Load(), probing)
	}
	for _, v := range res.Variants {
		t.Logf("%-40s %s  score %s  quality %s", v.Variant.Label(), v.Status, spec.Objective.FormatScore(v.Score), v.Quality.Short())
		for _, c := range v.Run.Cells {
			t.Logf("  %s %s %.1f tok/s, TTFT p90 %.0f ms %s", c.Name(), c.Status, c.TotalTokS, c.TTFTP90Ms, c.Reason)
		}
	}
	t.Logf("verdict: %s", res.Verdict)
	want := []tune.QualityVerdict{tune.QualityBaseline, tune.QualityKept, tune.QualityLost}
	for i, v := range res.Variants {
		if v.Status != tune.Measured || v.Quality == nil || v.Quality.Verdict != want[i] {
			t.Fatalf("%s: %s, quality %+v, want %s", v.Variant.Label(), v.Status, v.Quality, want[i])
		}
	}
	// Against the simulator's truth, item by item.
	base := truth(t, ds)
	for i, dtype := range []string{"fp8", "int4_per_token_head"} {
		cand := truth(t, ds, "--kv-cache-dtype", dtype)
		var b, c, right int
		for k := range base {
			switch {
			case base[k] && !cand[k]:
				b++
			case !base[k] && cand[k]:
				c++
			}
			if cand[k] {
				right++
			}
		}
		got := res.Variants[i+1].Quality.Pairing.Task
		if got.RightOnlyBaseline != b || got.RightOnlyCandidate != c || got.McNemarP != quality.McNemarExact(b, c) ||
			got.Candidate.CI95 != quality.Wilson(right, 200) {
			t.Errorf("%s: flips %d/%d, p %g, CI %v; truth %d/%d, p %g, CI %v", dtype, got.RightOnlyBaseline, got.RightOnlyCandidate,
				got.McNemarP, got.Candidate.CI95, b, c, quality.McNemarExact(b, c), quality.Wilson(right, 200))
		}
		// The run keeps the same pairing, as the history and exports show it.
		kept, err := quality.FromRun(res.Variants[i+1].Run.Quality)
		if err != nil || kept.Baseline == nil || kept.Baseline.Task == nil || kept.Baseline.Task.McNemarP != got.McNemarP ||
			kept.Baseline.RunID != res.Variants[0].RunID {
			t.Errorf("%s: the run keeps %+v (%v), want the sweep's pairing against run %s", dtype, kept, err, res.Variants[0].RunID)
		}
	}
	int4, fp8 := res.Variants[2], res.Variants[1]
	if !fp8.Score.OK || !int4.Score.OK || !(int4.Score.Value > fp8.Score.Value) {
		t.Fatalf("int4 scored %v and fp8 %v: the workload no longer makes the lossy cache the fastest", int4.Score, fp8.Score)
	}
	if res.Best != 1 {
		t.Fatalf("best is variant %d, want fp8 (1): %s", res.Best, res.Verdict)
	}
	loss := int4.Quality.Pairing.Short("gsm8k:200")
	kept := fp8.Quality.Pairing.Task
	for _, w := range []string{"`--kv-cache-dtype fp8`: 8 streams", "`--kv-cache-dtype int4_per_token_head`: 16 streams", loss + ": not recommended",
		fmt.Sprintf("`--kv-cache-dtype fp8`: no significant change in quality (%s points, %s)",
			strings.Replace(fmt.Sprintf("%+.1f", kept.DeltaPoints), "-", "−", 1), quality.PText(kept.McNemarP))} {
		if !strings.Contains(res.Verdict, w) {
			t.Errorf("the verdict lacks %q:\n%s", w, res.Verdict)
		}
	}
	header, rows := res.Document().Table()
	if h := header[len(header)-1]; h != "quality (gsm8k:200)" || !strings.HasSuffix(rows[2][len(rows[2])-1], ": loses") {
		t.Errorf("the table's quality column is %q with int4's %q", h, rows[2][len(rows[2])-1])
	}

	// A resumed sweep takes every variant, probe included, from the
	// history: nothing is measured or asked again, and the verdict stands.
	asked.Store(0)
	r2 := &tune.Runner{Spec: spec, Target: demoTarget(5), Hardware: noGPU, QualityProbe: probe, History: hist.tagged}
	again, err := r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != 0 || again.Verdict != res.Verdict {
		t.Errorf("resume asked %d probes; verdict %q, want %q", asked.Load(), again.Verdict, res.Verdict)
	}
}

// A sweep whose probe cannot be built (a name that is no probe; a task
// probe's data set with nowhere to keep it, off the demo) is refused
// before any variant starts, naming the probe; on the demo, Run builds
// the probe from its name (the demo's own set), as the app's Tune does.
func TestQualitySweepBuildsItsProbe(t *testing.T) {
	t.Parallel()
	bad := qualitySpec(t)
	bad.Quality = "gsm8k:many"
	r := &tune.Runner{Spec: bad, Target: demoTarget(5), Hardware: noGPU}
	if _, err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "gsm8k:many") {
		t.Errorf("err %v, want a refusal naming the probe", err)
	}
	if testing.Short() {
		return
	}
	spec := qualitySpec(t)
	spec.Dimensions = []tune.Dimension{dim(t, "kv-cache-dtype=auto,int4_per_token_head")}
	r = &tune.Runner{Spec: spec, Target: demoTarget(5), Hardware: noGPU}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if q := res.Variants[1].Quality; q == nil || q.Verdict != tune.QualityLost {
		t.Errorf("int4's quality %+v, want a loss found by the probe Run built", q)
	}
}

// A resume that asks another probe than the sweep's is refused: its
// variants' probes would not pair with the kept ones.
func TestResumeKeepsTheQualityProbe(t *testing.T) {
	t.Parallel()
	kept := qualitySpec(t)
	other := kept
	other.Quality = "agreement"
	if err := other.Matches(kept); err == nil || !strings.Contains(err.Error(), "quality probe") {
		t.Errorf("a resume with another probe: %v, want a refusal naming the quality probe", err)
	}
	if err := kept.Matches(kept); err != nil {
		t.Errorf("the same sweep refused: %v", err)
	}
}
