package tune_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
)

// probeRun is a run at 16K×8 of tokS whose gsm8k:100 probe gets the first
// `right` items right, or fails with failed.
func probeRun(t *testing.T, tokS float64, right int, failed string) *rundoc.Run {
	t.Helper()
	res := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:100", Profile: "p", Dataset: &quality.DatasetRef{Name: "d", SHA256: "s", Items: 100}}
	for i := range 100 {
		res.Items = append(res.Items, quality.Item{ID: fmt.Sprint(i), Want: "1", Correct: i < right, CompletionTokens: 10})
	}
	c := &quality.Check{Probe: "gsm8k:100", Result: res}
	if failed != "" {
		c = &quality.Check{Probe: "gsm8k:100", Error: failed}
	}
	q, err := c.Doc()
	if err != nil {
		t.Fatal(err)
	}
	return &rundoc.Run{Status: rundoc.RunComplete, Quality: q, Cells: []rundoc.Cell{decode(16384, 8, v, tokS, 900)}}
}

// judgedQuality judges auto, fp8 and int4_per_token_head with a gsm8k:100
// probe: runs[i] for variant i.
func judgedQuality(t *testing.T, runs ...*rundoc.Run) *tune.Result {
	t.Helper()
	plan := rundoc.Plan{Contexts: []int{16384}, Concurrency: []int{8}}
	o, err := tune.ParseObjective("total-tok-s@16Kx8", plan)
	if err != nil {
		t.Fatal(err)
	}
	spec := tune.Spec{ID: "q", Mode: tune.Grid, Plan: plan, Objective: o, Quality: "gsm8k:100",
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8,int4_per_token_head")}}
	var out []tune.VariantResult
	for i, v := range spec.Variants() {
		out = append(out, tune.VariantResult{Variant: v, Status: tune.Measured, Run: runs[i], RunID: fmt.Sprint("run-", i)})
	}
	return tune.Judge(spec, out)
}

// The verdict's quality rule on each of its paths (METHOD.md: "In a run
// and in Tune").
func TestQualityVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		runs     func(t *testing.T) []*rundoc.Run
		best     int
		want     []string
		unwanted []string
	}{
		{"the fastest keeps quality", func(t *testing.T) []*rundoc.Run {
			return []*rundoc.Run{probeRun(t, 100, 80, ""), probeRun(t, 120, 80, ""), probeRun(t, 160, 60, "")}
		}, 1, []string{"`--kv-cache-dtype fp8`: +20% total tok/s at 16K×8 over your flags.",
			"`--kv-cache-dtype int4_per_token_head`: +60% total tok/s at 16K×8, but gsm8k:100 −20.0 points (p < 0.0001): not recommended",
			"`--kv-cache-dtype fp8`: no significant change in quality (+0.0 points, p = 1.00)."}, nil},
		{"only a lossy variant is faster", func(t *testing.T) []*rundoc.Run {
			return []*rundoc.Run{probeRun(t, 100, 80, ""), probeRun(t, 100, 80, ""), probeRun(t, 160, 60, "")}
		}, 0, []string{"Keep your flags:", "not recommended"}, []string{"no variant beats"}},
		{"a lossy variant within the noise", func(t *testing.T) []*rundoc.Run {
			return []*rundoc.Run{probeRun(t, 100, 80, ""), probeRun(t, 90, 80, ""), probeRun(t, 101, 60, "")}
		}, 0, []string{"`--kv-cache-dtype int4_per_token_head`: 101.0 tok/s, within the noise of your flags, but gsm8k:100 −20.0 points (p < 0.0001): not recommended."}, nil},
		{"a faster variant whose probe failed", func(t *testing.T) []*rundoc.Run {
			return []*rundoc.Run{probeRun(t, 100, 80, ""), probeRun(t, 120, 80, ""), probeRun(t, 160, 0, "the quality probe failed: item 3: timeout")}
		}, 1, []string{"but its quality could not be checked (the quality probe failed: item 3: timeout): not recommended"}, nil},
		{"a significant gain is no loss", func(t *testing.T) []*rundoc.Run {
			return []*rundoc.Run{probeRun(t, 100, 60, ""), probeRun(t, 120, 60, ""), probeRun(t, 160, 80, "")}
		}, 2, []string{"`--kv-cache-dtype int4_per_token_head`: quality gained (+20.0 points, p < 0.0001)."}, []string{"not recommended"}},
		{"the base has no probe", func(t *testing.T) []*rundoc.Run {
			return []*rundoc.Run{probeRun(t, 100, 0, "the quality probe failed: refused"), probeRun(t, 120, 80, ""), probeRun(t, 160, 60, "")}
		}, 2, []string{"Quality was not checked: your flags have no gsm8k:100 result to pair with (the quality probe failed: refused), so this verdict is on speed alone."},
			[]string{"not recommended"}},
	} {
		r := judgedQuality(t, tc.runs(t)...)
		if r.Best != tc.best {
			t.Errorf("%s: best %d, want %d: %s", tc.name, r.Best, tc.best, r.Verdict)
		}
		if r.QualityVerdict == "" || !strings.HasSuffix(r.Verdict, r.QualityVerdict) {
			t.Errorf("%s: the quality sentences %q are not the verdict's end: %s", tc.name, r.QualityVerdict, r.Verdict)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Verdict, w) {
				t.Errorf("%s: the verdict lacks %q:\n%s", tc.name, w, r.Verdict)
			}
		}
		for _, w := range tc.unwanted {
			if strings.Contains(r.Verdict, w) {
				t.Errorf("%s: the verdict says %q:\n%s", tc.name, w, r.Verdict)
			}
		}
	}
}
