package bench

import "testing"

// TestLeadsDiffer: the first word of every prompt of a run is its own, and
// prompts sent one after another differ from the first digit (issue 30
// item 2), at the same width for all.
func TestLeadsDiffer(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for idx := range 20000 {
		l := lead("1a2b3c4d", idx)
		if len(l) != leadDigits || seen[l] || prev != "" && l[0] == prev[0] {
			t.Fatalf("lead %d = %q (previous %q, seen before: %v)", idx, l, prev, seen[l])
		}
		seen[l], prev = true, l
	}
	if lead("1a2b3c4d", 7) == lead("ffff0000", 7) {
		t.Error("two runs' prompts of the same index share their lead")
	}
}
