package quality

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCheckRoundTrip: a check kept in the run document reads back equal,
// for a task probe and for the agreement probe.
func TestCheckRoundTrip(t *testing.T) {
	t.Parallel()
	base, cand := pairedResults(100, 80, 12, 2)
	agBase := &Result{Kind: Kind, Probe: "agreement", Profile: "a", Prompts: []PromptTokens{{ID: "p", Tokens: []string{"x", "y"}, TopLogprobs: []map[string]float64{{"x": -0.1}, {"y": -0.2}}}}}
	agCand := &Result{Kind: Kind, Probe: "agreement", Profile: "a", Prompts: []PromptTokens{{ID: "p", Tokens: []string{"x", "z"}, TopLogprobs: []map[string]float64{{"x": -0.3}, {"z": -0.2}}}}}
	for _, c := range []*Check{
		{Probe: cand.Probe, Result: cand, Baseline: Pair(base, cand, "run-1", "your flags")},
		{Probe: "agreement", Result: agCand, Baseline: Pair(agBase, agCand, "", "base.json")},
		{Probe: "gsm8k:5", Error: "the quality probe failed: item 3: timeout"},
		{Probe: cand.Probe, Result: cand, Baseline: Pair(agBase, cand, "", "x")}, // refused: kept as its error
	} {
		doc, err := c.Doc()
		if err != nil {
			t.Fatal(err)
		}
		// Through JSON, as the history and an export keep it.
		raw, _ := json.Marshal(doc)
		var back rundoc.Quality
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		got, err := FromRun(&back)
		if err != nil {
			t.Fatalf("%s: %v", c.Probe, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("%s read back as %+v, want %+v", c.Probe, got, c)
		}
	}
}

// TestLossRule: the rule of METHOD.md "Quality in Tune" on each side of
// its edges.
func TestLossRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		n, right, lost, g int
		loses             bool
	}{
		{"significant loss", 200, 150, 21, 1, true},
		{"loss not significant", 200, 150, 4, 1, false},
		{"significant gain", 200, 100, 1, 21, false},
		{"nothing flipped", 200, 150, 0, 0, false},
	} {
		base, cand := pairedResults(tc.n, tc.right, tc.lost, tc.g)
		p := Pair(base, cand, "", "")
		if loses, known := p.Loses(); !known || loses != tc.loses {
			t.Errorf("%s: Loses = %v (known %v), want %v (p = %g, Δ = %g)", tc.name, loses, known, tc.loses, p.Task.McNemarP, p.Task.DeltaPoints)
		}
	}
	if (&Agreement{Prompts: 8, PrefixShare: 0.943, PrefixShareCI95: 0.134}).Loses() {
		t.Error("agreement whose interval reaches 100% called a loss")
	}
	if !(&Agreement{Prompts: 8, PrefixShare: 0.318, PrefixShareCI95: 0.275}).Loses() {
		t.Error("agreement whose interval stays below 100% not called a loss")
	}
	if _, known := (&Pairing{Error: "refused"}).Loses(); known {
		t.Error("a refused pairing claims to know")
	}
}

// FuzzFromRun: whatever a run file's quality section holds, FromRun
// returns a check or an error, never panics.
func FuzzFromRun(f *testing.F) {
	base, cand := pairedResults(10, 8, 2, 1)
	good, _ := (&Check{Probe: cand.Probe, Result: cand, Baseline: Pair(base, cand, "r", "l")}).Doc()
	f.Add(good.Probe, []byte(good.Result), []byte(good.Baseline.Comparison), "")
	f.Add("agreement", []byte(`{"kind":"rigbench.quality/v1","probe":"agreement","prompts":[{"id":"a","tokens":["x"],"top_logprobs":[{"x":-1}]}]}`), []byte(`{"prompts":1}`), "")
	f.Add("x", []byte(`{"kind":"rigbench.quality/v1","probe":"x","dataset":{}}`), []byte(`[]`), "e")
	f.Add("", []byte(``), []byte(``), "")
	f.Fuzz(func(t *testing.T, probe string, result, comparison []byte, errText string) {
		q := &rundoc.Quality{Probe: probe, Result: result, Error: errText}
		if len(comparison) > 0 || errText != "" {
			q.Baseline = &rundoc.QualityBaseline{Comparison: comparison, Error: errText}
		}
		c, err := FromRun(q)
		if err == nil && c == nil {
			t.Fatal("no check and no error")
		}
	})
}
