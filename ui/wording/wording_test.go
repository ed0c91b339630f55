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
