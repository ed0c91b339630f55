package redact

import (
	"strings"
	"testing"
)

// The one rule: a secret of any length is masked; a long one wherever it
// appears, a short one (1 to 3 bytes) where it stands as a word, so a
// 2-character key does not mask every "ab" of a log.
func TestRule(t *testing.T) {
	for _, c := range []struct {
		secrets []string
		in      string
		want    string
	}{
		{[]string{"rb-secret-key"}, "args: {'api_key': 'rb-secret-key'}", "args: {'api_key': '<redacted>'}"},
		{[]string{"rb-secret-key"}, "Bearer xrb-secret-keyx", "Bearer x<redacted>x"}, // long: inside a word too
		{[]string{"abc"}, "unrecognized arguments: --api-key abc", "unrecognized arguments: --api-key <redacted>"},
		{[]string{"abc"}, "api_key='abc', abc. (abc)", "api_key='<redacted>', <redacted>. (<redacted>)"},
		{[]string{"abc"}, "abcdef xabc abc_1 abc-model --abc abc", "abcdef xabc abc_1 abc-model --abc <redacted>"},
		{[]string{"ab"}, "about a table ab", "about a table <redacted>"},
		{[]string{"é"}, "café é", "café <redacted>"}, // a letter beyond ASCII is a word rune
		{[]string{"a"}, "a", "<redacted>"},
		{[]string{"abcd", "abcdefgh"}, "abcdefgh abcd", "<redacted> <redacted>"}, // the longer first: masked whole
		{[]string{"", "x"}, "", ""},
		{nil, "nothing to hide", "nothing to hide"},
	} {
		r := New(c.secrets...)
		if got := r.String(c.in); got != c.want {
			t.Errorf("%q in %q: %q, want %q", c.secrets, c.in, got, c.want)
		}
		if got := string(r.Bytes([]byte(c.in))); got != c.want {
			t.Errorf("%q in %q as bytes: %q, want %q", c.secrets, c.in, got, c.want)
		}
	}
	if !New().Empty() || !New("").Empty() || New("k").Empty() {
		t.Error("Empty: a Redactor of no secret hides nothing, one of a secret does")
	}
	var zero Redactor
	if zero.String("abc") != "abc" {
		t.Error("the zero Redactor changed text")
	}
}

// A secret of Anywhere bytes or more never survives redaction, wherever
// it stands (but where the mask itself spells it, or its angle brackets
// could join the text around it).
func FuzzRedact(f *testing.F) {
	f.Add("sk-SECRETKEY", "bad header Bearer sk-SECRETKEY and sk-SECRETKEYsk-SECRETKEY")
	f.Add("hf_token_value", "HF hf_token_valuehf_token_value")
	f.Add("aaaa", "aaaaaaa")
	f.Fuzz(func(t *testing.T, secret, text string) {
		if len(secret) < Anywhere || strings.Contains(Mask, secret) || strings.ContainsAny(secret, "<>") {
			return
		}
		if got := New(secret).String(text); strings.Contains(got, secret) {
			t.Errorf("%q still holds %q: %q", text, secret, got)
		}
	})
}
