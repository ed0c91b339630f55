package quality

import (
	"fmt"
	"strings"
	"testing"
)

// pairedResults builds a baseline with the first `right` of n items correct
// and a candidate that loses the first `lost` of them and gains the first
// `gained` wrong ones; odd items are category "b", even ones "a".
func pairedResults(n, right, lost, gained int) (*Result, *Result) {
	ds := &DatasetRef{Name: "t", SHA256: "abc", Items: n}
	base := &Result{Kind: Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	cand := &Result{Kind: Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	for i := range n {
		cat := "a"
		if i%2 == 1 {
			cat = "b"
		}
		b := Item{ID: fmt.Sprint("q", i), Category: cat, Correct: i < right, CompletionTokens: 100 + i}
		c := b
		c.CompletionTokens = 2 * b.CompletionTokens
		if i < lost {
			c.Correct = false
		}
		if i >= right && i < right+gained {
			c.Correct = true
		}
		base.Items = append(base.Items, b)
		cand.Items = append(cand.Items, c)
	}
	return base, cand
}

func TestCompareCountsFlipsAndTests(t *testing.T) {
	base, cand := pairedResults(100, 80, 10, 2)
	c, err := Compare(base, cand)
	if err != nil {
		t.Fatal(err)
	}
	if c.RightOnlyBaseline != 10 || c.RightOnlyCandidate != 2 {
		t.Fatalf("flips = %d/%d, want 10/2", c.RightOnlyBaseline, c.RightOnlyCandidate)
	}
	// 2 · (1 + 12 + 66) / 4096, by hand.
	if want := 158.0 / 4096; !near(c.McNemarP, want, 1e-12) {
		t.Errorf("p = %.10f, want %.10f", c.McNemarP, want)
	}
	if !c.Significant || !near(c.DeltaPoints, -8, 1e-9) {
		t.Errorf("delta %.2f significant %v, want -8 and true", c.DeltaPoints, c.Significant)
	}
	if c.Baseline.Correct != 80 || c.Candidate.Correct != 72 {
		t.Errorf("accuracies %d/%d, want 80/72", c.Baseline.Correct, c.Candidate.Correct)
	}
	if !near(c.Tokens.Ratio, 2, 1e-12) || !near(c.Tokens.BaselineP50, 149.5, 1e-9) {
		t.Errorf("tokens %+v, want ratio 2 and baseline p50 149.5", c.Tokens)
	}
	// Lost items 0..9: five even (a), five odd (b); gained 80, 81.
	if len(c.Categories) != 2 || c.Categories[0].Lost != 5 || c.Categories[0].Gained != 1 {
		t.Errorf("categories %+v", c.Categories)
	}
	if !strings.Contains(c.Verdict(), "lost 8.0 points (p = 0.039)") {
		t.Errorf("verdict %q", c.Verdict())
	}
}

func TestCompareNoChangeSaysWhatItCouldSee(t *testing.T) {
	base, cand := pairedResults(200, 160, 1, 1)
	c, err := Compare(base, cand)
	if err != nil {
		t.Fatal(err)
	}
	if c.Significant || c.McNemarP != 1 {
		t.Fatalf("p = %g, want 1", c.McNemarP)
	}
	if v := c.Verdict(); !strings.Contains(v, "no significant change") || !strings.Contains(v, "3.4 points") {
		t.Errorf("verdict %q, want no significant change and the detectable 3.4 points", v)
	}
}

func TestCompareRefuses(t *testing.T) {
	base, cand := pairedResults(10, 5, 0, 0)
	other := *cand.Dataset
	other.SHA256 = "def"
	cand.Dataset = &other
	if _, err := Compare(base, cand); err == nil || !strings.Contains(err.Error(), "data set") {
		t.Errorf("different sha256: %v", err)
	}
	base, cand = pairedResults(10, 5, 0, 0)
	cand.Profile = "q"
	if _, err := Compare(base, cand); err == nil || !strings.Contains(err.Error(), "settings") {
		t.Errorf("different profile: %v", err)
	}
	base, cand = pairedResults(10, 5, 0, 0)
	cand.Items[3].ID = "other"
	if _, err := Compare(base, cand); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("different items: %v", err)
	}
}
