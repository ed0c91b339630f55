package tune_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestSweepFromAdviceConfirmsPredictions is issue 26's loop in demo: a
// run on the tiny card with --max-num-seqs 2 queues at 0×4 and is over
// capacity at 1920×2; its advice (--max-num-seqs 4, --kv-cache-dtype fp8)
// becomes a sweep whose verdict checks both predictions against what the
// variants measured, and both hold.
func TestSweepFromAdviceConfirmsPredictions(t *testing.T) {
	tiny, err := sim.ProfileByName("tiny")
	if err != nil {
		t.Fatal(err)
	}
	var flags vllm.LaunchConfig
	flags.Set("--max-num-seqs", "2")
	cfg, err := session.DemoConfig(flags, 20)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profile = tiny
	plan := rundoc.Plan{Contexts: []int{0, 1920}, Concurrency: []int{2, 4}, DurationS: 5, MaxOutput: 64}
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, SimLaunch: session.DemoLaunch(flags, cfg),
		Plan: plan, Hardware: noGPU, NoTelemetry: true})
	if err != nil {
		t.Fatal(err)
	}
	advice := diagnose.Advise(run)
	spec, err := tune.FromAdvice(run, advice)
	if err != nil {
		t.Fatalf("advice %+v: %v", advice, err)
	}
	if len(spec.Dimensions) != 2 || spec.Target != tune.TargetDemo || len(spec.Expect) < 2 {
		t.Fatalf("spec from advice %q: %+v", adviceTexts(advice), spec)
	}
	// The advised --kv-cache-dtype is lossy: the sweep asks the agreement
	// probe of every variant and judges each against the base's.
	if spec.Quality != tune.AdviceProbe {
		t.Fatalf("the sweep of lossy advice asks quality probe %q, want %q", spec.Quality, tune.AdviceProbe)
	}
	r := &tune.Runner{Spec: spec, Target: tune.Demo{Sim: cfg}, Hardware: noGPU, NoTelemetry: true} // the agreement probe needs no builder
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The tiny profile serves 2,048 tokens of context, fewer than the
	// probe's long-context prompt needs: every probe fails, each run says
	// why, and the verdict says it is on speed alone rather than claim a
	// quality it did not check.
	for _, v := range res.Variants {
		if v.Quality == nil || v.Quality.Verdict != tune.QualityUnknown || !strings.Contains(v.Quality.Why, "longer than the server's context") {
			t.Errorf("%s: quality %+v, want unknown: the prompt does not fit", v.Variant.Label(), v.Quality)
		}
	}
	if !strings.Contains(res.Verdict, "Quality was not checked: your flags have no agreement result to pair with") {
		t.Errorf("the verdict does not say quality went unchecked: %s", res.Verdict)
	}
	for _, want := range []string{"predicted: 0×4 runs without queueing — measured: runs without queueing", "predicted: 1920×2 fits — measured: fits"} {
		if !strings.Contains(strings.ToLower(res.Verdict), want) {
			t.Errorf("verdict %q lacks %q", res.Verdict, want)
		}
	}
	for _, c := range res.Checks {
		if !c.Held {
			t.Errorf("%s: did not hold", c.Text())
		}
	}
	t.Logf("advice %q\nverdict: %s", adviceTexts(advice), res.Verdict)
}

func adviceTexts(as []diagnose.Advice) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Text())
	}
	return out
}
