package sim

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokenizer(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 1},
		{"hello", 3},                     // BOS "hell" "o"
		{"measure the card", 5},          // BOS "meas" "ure" "the" "card"
		{"  benchmarking\tservers\n", 6}, // BOS "benc" "hmar" "king" "serv" "ers"
		{"größenordnung", 5},             // runes, not bytes: "größ" "enor" "dnun" "g"
		{"abcd", 2},
		{"<|im_start|>user\nhello<|im_end|>\n", 6}, // BOS <|im_start|> "user" "hell" "o" <|im_end|>
		{"abcd<|im_end|>", 3},                      // a special token ends a piece of 4 runes too
		{"<|im_star|>", 4},                         // not a special token: "<|im" "_sta" "r|>"
	} {
		if got := len(tokenize(tc.text, true)); got != tc.want {
			t.Errorf("tokenize(%q) = %d tokens, want %d", tc.text, got, tc.want)
		}
	}
	if len(tokenize("hello", false)) != 2 {
		t.Error("add_special_tokens=false still adds BOS")
	}
	if ids := tokenize("x<|im_start|><|im_end|>", false); len(ids) != 3 || ids[1] != imStartToken || ids[2] != imEndToken {
		t.Errorf("special tokens: %v", ids)
	}
	a, b := tokenize("the cat", false), tokenize("cat the", false)
	if a[0] != b[1] || a[0] == tokenize("xthe", false)[0] {
		t.Error("ids must depend on the piece and on its word start only")
	}
}

func FuzzTokenize(f *testing.F) {
	f.Add("hello world")
	f.Add("größenordnung \u00a0 \xff\xfe broken utf8")
	f.Add(strings.Repeat("a", 17))
	f.Add("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<|im_")
	f.Fuzz(func(t *testing.T, text string) {
		ids := tokenize(text, true)
		if ids[0] != bosToken {
			t.Fatal("no BOS")
		}
		// Never fewer tokens than words, never more than runes + 1.
		if len(ids)-1 < len(strings.Fields(text)) && utf8.ValidString(text) {
			t.Fatalf("%d tokens for %d words", len(ids)-1, len(strings.Fields(text)))
		}
		if len(ids)-1 > utf8.RuneCountInString(text) {
			t.Fatalf("%d tokens for %d runes", len(ids)-1, utf8.RuneCountInString(text))
		}
		for _, id := range ids[1:] {
			if id < 3 || id >= vocabSize {
				t.Fatalf("id %d out of range", id)
			}
		}
	})
}
