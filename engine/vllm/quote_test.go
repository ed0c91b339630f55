package vllm_test

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/mattn/go-shellwords"
	"github.com/rigbench/rigbench/engine/vllm"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                         "''",
		"Qwen/Qwen2.5-7B":          "Qwen/Qwen2.5-7B",
		`{"image":0}`:              `'{"image":0}'`,
		"it's":                     `'it'\''s'`,
		"~/.cache/huggingface":     "~/.cache/huggingface",
		"~/my cache":               "~/'my cache'",
		"a b":                      "'a b'",
		"$HOME":                    "'$HOME'",
		"127.0.0.1:8000:8000":      "127.0.0.1:8000:8000",
		"--gpu-memory-utilization": "--gpu-memory-utilization",
	}
	for in, want := range cases {
		if got := vllm.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzQuote: any argument list survives JoinArgs and the shell-words split.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a b", "it's", `"\`, "x\ny", "~/a b", "\\\n", "$(x)", "a;b|c", "\t"} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Skip("commands are text: ParseCommand refuses invalid UTF-8")
		}
		args := []string{a, b}
		got, err := shellwords.Parse(vllm.JoinArgs(args))
		if err != nil {
			t.Fatalf("split %q: %v", vllm.JoinArgs(args), err)
		}
		if !slices.Equal(got, args) {
			t.Fatalf("round trip of %q gave %q via %s", args, got, vllm.JoinArgs(args))
		}
	})
}
