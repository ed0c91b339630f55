package tune_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestSpeculativeDimension: --vary speculative reads off and METHOD:K
// into --speculative-config's JSON, labels variants in the short form,
// leaves off out when the base does not draft and removes the flag when
// it does, and refuses what it cannot read in one sentence.
func TestSpeculativeDimension(t *testing.T) {
	d := dim(t, "speculative=off,mtp:1,mtp:2,MTP:2,ngram:4")
	if d.Flag != vllm.SpeculativeFlag || len(d.Values) != 4 || d.Values[0] != "" ||
		d.Values[2] != `{"method":"mtp","num_speculative_tokens":2}` {
		t.Fatalf("dimension %+v", d)
	}
	if got := d.Text(); got != "speculative=off,mtp:1,mtp:2,ngram:4" {
		t.Errorf("text %q", got)
	}
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 10, MaxOutput: 256}
	s := tune.Spec{Mode: tune.Grid, Plan: plan, Dimensions: []tune.Dimension{d}}
	var labels []string
	for _, v := range s.Variants() {
		labels = append(labels, v.Label())
	}
	if want := "your flags|speculative mtp:1|speculative mtp:2|speculative ngram:4"; strings.Join(labels, "|") != want {
		t.Errorf("variants %q, want %q", labels, want)
	}
	s.Base.Set(vllm.SpeculativeFlag, `{"method":"eagle","num_speculative_tokens":3}`)
	vs := s.Variants()
	if vs[1].Label() != "without speculative decoding" {
		t.Fatalf("off against a drafting base: %q", vs[1].Label())
	}
	if _, ok := vs[1].Config.Get(vllm.SpeculativeFlag); ok {
		t.Errorf("the off variant still drafts: %+v", vs[1].Config)
	}
	// A spec read back from its file is checked again (Spec.Validate):
	// the stored JSON values and off must read as they were written.
	back, err := tune.NewDimension(d.Flag, d.Values)
	if err != nil || strings.Join(back.Values, "|") != strings.Join(d.Values, "|") {
		t.Errorf("read back: %+v, %v", back, err)
	}
	for label, want := range map[string]string{"speculative mtp:2": "speculative mtp:2", "without speculative decoding": "without speculative decoding"} {
		v := tune.DocVariant{Label: label}
		if label == "speculative mtp:2" {
			v.Flags = tune.FlagArgs([]vllm.FlagValue{{Name: vllm.SpeculativeFlag, Value: d.Values[2]}})
		}
		if got := tune.BarLabel(v); got != want {
			t.Errorf("bar label %q, want %q", got, want)
		}
	}
	for _, bad := range []string{"speculative=mtp", "speculative=medusa:2", "speculative=mtp:0", "speculative={oops"} {
		if _, err := tune.ParseDimension(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestSpeculativeSweepVerdict is issue 39's second "done when" in the
// engine: a demo sweep over off and mtp:1,2,3 picks a drafting variant,
// and its verdict names each variant's acceptance and whether the gain
// came from the engine or from acceptance on this prompt.
func TestSpeculativeSweepVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo sweep of four variants in real time: skipped with -short (make test runs it)")
	}
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 15, MaxOutput: 512}
	obj, err := tune.ParseObjective("total-tok-s@0x4", plan)
	if err != nil {
		t.Fatal(err)
	}
	spec := tune.Spec{ID: tune.NewID(), Mode: tune.Grid, Plan: plan, Objective: obj,
		Dimensions: []tune.Dimension{dim(t, "speculative=off,mtp:1,mtp:2,mtp:3")}}
	res, err := (&tune.Runner{Spec: spec, Target: demoTarget(20), Hardware: noGPU}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 4 || res.Best <= 0 {
		t.Fatalf("%d variants, best %d: %s", len(res.Variants), res.Best, res.Verdict)
	}
	for _, want := range []string{"accepted", "tokens/step", "steps/s", "speculative mtp:1", "speculative mtp:3", "the gain"} {
		if !strings.Contains(res.Verdict, want) {
			t.Errorf("the verdict does not say %q:\n%s", want, res.Verdict)
		}
	}
	t.Log(res.Verdict)
}
