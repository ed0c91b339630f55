package vllm_test

import (
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

// vLLM serves a --served-model-name given as one word under that whole
// word: readiness must wait for it, not for its first space-separated part
// (which the server never lists, so the launch waited out its timeout).
func TestServedModelNameIsTheWholeValue(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"", "org/model"},
		{"chat", "chat"},
		{"a b; c", "a b; c"},
	} {
		cfg := vllm.LaunchConfig{Model: "org/model"}
		if c.value != "" {
			cfg.Set("--served-model-name", c.value)
		}
		if got := cfg.ServedModelName(); got != c.want {
			t.Errorf("--served-model-name %q: ServedModelName() = %q, want %q", c.value, got, c.want)
		}
	}
}

// zsh expands a word that starts with "=" (=cmd is the path of cmd), so
// such a word is quoted in every command line RigBench shows.
func TestQuoteLeadingEquals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"=word", "'=word'"},
		{"a=b", "a=b"},
		{"--flag=x", "--flag=x"},
	} {
		if got := vllm.Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A control character typed into a flag value, the model or an extra
// argument (ESC, BEL) is refused by Validate, so no preview echoes it to a
// terminal and no server receives it.
func TestValidateRefusesControlCharacters(t *testing.T) {
	for _, cfg := range []vllm.LaunchConfig{
		{Model: "org/m\x1b[2J"},
		{Model: "org/m", Extra: []string{"--speed", "2\a"}},
		func() vllm.LaunchConfig {
			c := vllm.LaunchConfig{Model: "org/m"}
			c.Set("--served-model-name", "a\x1bb")
			return c
		}(),
	} {
		if errs := vllm.Errors(cfg.Validate()); len(errs) == 0 {
			t.Errorf("%+v: no error for a control character", cfg)
		}
	}
	ok := vllm.LaunchConfig{Model: "org/m", Extra: []string{"--speculative-config", `{"method":"ngram"}`}}
	if errs := vllm.Errors(ok.Validate()); len(errs) > 0 {
		t.Errorf("a clean config: %v", errs)
	}
}
