package wording

import "testing"

func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "",
		"  cannot reach the server": "Cannot reach the server.",
		"already done.":             "Already done.",
		"is it running?":            "Is it running?",
		"stop!":                     "Stop!",
		"ödeme reddedildi":          "Ödeme reddedildi.",
	} {
		if got := Sentence(in); got != want {
			t.Errorf("Sentence(%q) = %q, want %q", in, got, want)
		}
	}
	if got := LowerFirst("The history"); got != "the history" {
		t.Errorf("LowerFirst = %q", got)
	}
	if got := LowerFirst("Élan"); got != "élan" {
		t.Errorf("LowerFirst of a multi-byte letter = %q", got)
	}
	if LowerFirst("") != "" {
		t.Error("LowerFirst of blank is not blank")
	}
}

// TestCount: a count agrees with its noun; Tune's form read "1 variants"
// for a sweep of one variant (issue 41 item 16).
func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 variants", 1: "1 variant", 2: "2 variants", 12: "12 variants"} {
		if got := Count(n, "variant"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
