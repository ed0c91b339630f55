package vllm

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// SpeculativeFlag is vLLM's speculative-decoding flag, whose value is a
// JSON object.
const SpeculativeFlag = "--speculative-config"

// SpeculativeMethods are the drafting methods the short form of
// SpeculativeValue names ("mtp:2"): a model's own multi-token-prediction
// head, EAGLE and EAGLE-3 heads, and n-gram lookup in the prompt.
var SpeculativeMethods = []string{"mtp", "eagle", "eagle3", "ngram"}

// SpeculativeValue turns a speculative-decoding choice as a user types it
// in a sweep into --speculative-config's value: "off" (or "none", or "")
// is "" (no speculation: the flag left out), "METHOD:K" is
// {"method":"METHOD","num_speculative_tokens":K}, and a JSON object is
// kept as it is. Errors say what to write.
func SpeculativeValue(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "off", "none", "false", "no":
		return "", nil
	}
	if strings.HasPrefix(s, "{") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			return "", fmt.Errorf("%s %s is not a JSON object: %v", SpeculativeFlag, s, err)
		}
		return s, nil
	}
	method, k, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(strings.TrimSpace(k))
	method = strings.ToLower(strings.TrimSpace(method))
	known := false
	for _, m := range SpeculativeMethods {
		known = known || m == method
	}
	if !ok || err != nil || n < 1 || n > 16 || !known {
		return "", fmt.Errorf("speculative %q: write off, METHOD:TOKENS (METHOD one of %s, TOKENS 1 to 16, e.g. mtp:2) or the JSON of %s",
			s, strings.Join(SpeculativeMethods, ", "), SpeculativeFlag)
	}
	b, _ := json.Marshal(struct {
		Method string `json:"method"`
		Tokens int    `json:"num_speculative_tokens"`
	}{method, n})
	return string(b), nil
}

// SpeculativeLabel is the short form of a --speculative-config value
// ("mtp:2"), or the value itself when it is not a method and a token
// count; "off" for "".
func SpeculativeLabel(v string) string {
	if strings.TrimSpace(v) == "" {
		return "off"
	}
	var cfg struct {
		Method string `json:"method"`
		Tokens int    `json:"num_speculative_tokens"`
	}
	if json.Unmarshal([]byte(v), &cfg) != nil || cfg.Method == "" || cfg.Tokens < 1 {
		return v
	}
	return cfg.Method + ":" + strconv.Itoa(cfg.Tokens)
}
