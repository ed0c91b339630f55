package termtext_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rigbench/rigbench/internal/termtext"
)

func TestSafe(t *testing.T) {
	cases := []struct{ in, want, lines string }{
		{"plain name", "plain name", "plain name"},
		{"Qwen3 · 4B — ünïcode 日本", "Qwen3 · 4B — ünïcode 日本", "Qwen3 · 4B — ünïcode 日本"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\atitle`, `\x1b]0;pwned\atitle`},
		{"nul\x00here", `nul\x00here`, `nul\x00here`},
		{"two\nlines\tand tab", `two\nlines\tand tab`, "two\nlines\tand tab"},
		{"cr\rover", `cr\rover`, `cr\rover`},
		{"del\x7f c1\u009b", `del\x7f c1\x9b`, `del\x7f c1\x9b`},
		{"bidi\u202eevil", `bidi\u202eevil`, `bidi\u202eevil`},
		{"bad\xffutf8", `bad\xffutf8`, `bad\xffutf8`},
		{"real \ufffd stays", "real \ufffd stays", "real \ufffd stays"},
	}
	for _, c := range cases {
		if got := termtext.Safe(c.in); got != c.want {
			t.Errorf("Safe(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := termtext.SafeLines(c.in); got != c.lines {
			t.Errorf("SafeLines(%q) = %q, want %q", c.in, got, c.lines)
		}
	}
}

// FuzzSafe: whatever the input, the output is valid UTF-8 with no
// character a terminal acts on (SafeLines keeps only newline and tab), and
// clean text passes unchanged.
func FuzzSafe(f *testing.F) {
	for _, s := range []string{"", "a", "\x1b[2J", "\xff\xfe", "é\u202e\n\t", "\x00\x07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lines := range []bool{false, true} {
			out := termtext.Safe(s)
			if lines {
				out = termtext.SafeLines(s)
			}
			if !utf8.ValidString(out) {
				t.Fatalf("%q -> invalid UTF-8 %q", s, out)
			}
			for _, r := range out {
				if r < 0x20 && !(lines && (r == '\n' || r == '\t')) || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
					t.Fatalf("%q -> %q still holds %U", s, out, r)
				}
			}
			if !strings.ContainsFunc(s, func(r rune) bool {
				return r < 0x20 || r >= 0x7f && r <= 0x9f || r == utf8.RuneError || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
			}) &&
				utf8.ValidString(s) && out != s {
				t.Fatalf("clean %q changed to %q", s, out)
			}
		}
	})
}

// The invisible direction marks (LRM, RLM, ALM) and the zero-width
// characters hide or reorder what the user reads: they are escaped too.
func TestInvisibleMarksAreEscaped(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\u200eb", `a\u200eb`}, // LRM
		{"a\u200fb", `a\u200fb`}, // RLM
		{"a\u061cb", `a\u061cb`}, // ALM
		{"a\u200bb", `a\u200bb`}, // zero-width space
		{"a\u200cb\u200db", `a\u200cb\u200db`},
		{"a\u2060b\ufeffb", `a\u2060b\ufeffb`},
		{"café", "café"},
	} {
		if got := termtext.Safe(c.in); got != c.want {
			t.Errorf("Safe(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
