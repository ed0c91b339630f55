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
	// The winner "off" against a drafting base: Apply leaves the flag out.
	base := s.Base
	res := &tune.Result{Spec: tune.Spec{Mode: tune.Grid, Plan: plan, Base: base, Dimensions: []tune.Dimension{dim(t, "speculative=off,mtp:2")}}}
	for _, v := range res.Spec.Variants() {
		res.Variants = append(res.Variants, tune.VariantResult{Variant: v, Status: tune.Measured})
	}
	res.Best = 1
	changes, ok := res.Document().BestChanges()
	if !ok || len(changes) != 1 || changes[0].Name != vllm.SpeculativeFlag || changes[0].Value != "" {
		t.Errorf("the off winner's changes %+v (%v), want --speculative-config left out", changes, ok)
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
	// A configuration the short form cannot say stays whole: in --vary
	// (commas inside JSON do not split it), in labels and in run names,
	// so two draft models are two variants.
	d = dim(t, `speculative={"method":"eagle","model":"a/eagle-1","num_speculative_tokens":3},{"method":"eagle","model":"b/eagle-2","num_speculative_tokens":3},mtp:2`)
	if len(d.Values) != 3 {
		t.Fatalf("JSON values split: %q", d.Values)
	}
	vs = tune.Spec{Mode: tune.Grid, Plan: plan, Dimensions: []tune.Dimension{d}}.Variants()
	if len(vs) != 4 || !strings.Contains(vs[1].Label(), "a/eagle-1") || !strings.Contains(vs[2].Label(), "b/eagle-2") {
		t.Errorf("two draft models: %d variants, %q, %q", len(vs), vs[1].Label(), vs[2].Label())
	}
	if again, err := tune.ParseDimension(d.Text()); err != nil || strings.Join(again.Values, "|") != strings.Join(d.Values, "|") {
		t.Errorf("the dimension's text %q reads back as %q, %v", d.Text(), again.Values, err)
	}
	if _, err := tune.ParseDimension("speculative=eagle:3"); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("eagle without its draft model: %v", err)
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
