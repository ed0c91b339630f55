package vllm

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// SpeculativeFlag is vLLM's speculative-decoding flag, whose value is a
// JSON object.
const SpeculativeFlag = "--speculative-config"

// MaxSpeculativeTokens bounds num_speculative_tokens where RigBench reads
// it (the short form here, the simulator): vLLM accepts more, but no
// drafter is useful beyond a handful.
const MaxSpeculativeTokens = 16

// speculativeShort are the drafting methods the short form "METHOD:K"
// names, each with the whole configuration it stands for: methods that
// need nothing but K (a model's own multi-token-prediction head; n-gram
// lookup in the prompt, with vLLM's documented lookup window). EAGLE and
// a draft model need the draft model's id, so they are given as JSON.
var speculativeShort = map[string]func(k int) map[string]any{
	"mtp": func(k int) map[string]any {
		return map[string]any{"method": "mtp", "num_speculative_tokens": k}
	},
	"ngram": func(k int) map[string]any {
		return map[string]any{"method": "ngram", "num_speculative_tokens": k, "prompt_lookup_max": 4}
	},
}

// SpeculativeMethods are the methods of the short form, in the order its
// help names them.
var SpeculativeMethods = []string{"mtp", "ngram"}

// SpeculativeValue turns a speculative-decoding choice as a user types it
// in a sweep into --speculative-config's value: "off" (or "none", or "")
// is "" (no speculation: the flag left out), "METHOD:K" is the whole
// configuration it stands for (speculativeShort), and a JSON object is
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
	method = strings.ToLower(strings.TrimSpace(method))
	n, err := strconv.Atoi(strings.TrimSpace(k))
	short, known := speculativeShort[method]
	switch {
	case !known && (method == "eagle" || method == "eagle3" || method == "draft_model"):
		return "", fmt.Errorf("speculative %q: %s drafts with a model of its own, so give the whole JSON with it, e.g. "+
			`{"method":"%s","model":"DRAFT_MODEL_ID","num_speculative_tokens":3}`, s, method, method)
	case !ok || err != nil || n < 1 || n > MaxSpeculativeTokens || !known:
		return "", fmt.Errorf("speculative %q: write off, METHOD:TOKENS (METHOD one of %s, TOKENS 1 to %d, e.g. mtp:2) or the JSON of %s",
			s, strings.Join(SpeculativeMethods, ", "), MaxSpeculativeTokens, SpeculativeFlag)
	}
	b, _ := json.Marshal(short(n))
	return string(b), nil
}

// SpeculativeLabel is the short form of a --speculative-config value
// ("mtp:2") where the value is exactly what that short form stands for,
// else the value itself, so a label never hides a draft model or a lookup
// window; "off" for "".
func SpeculativeLabel(v string) string {
	if strings.TrimSpace(v) == "" {
		return "off"
	}
	var cfg map[string]any
	if json.Unmarshal([]byte(v), &cfg) != nil {
		return v
	}
	method, _ := cfg["method"].(string)
	k, _ := cfg["num_speculative_tokens"].(float64)
	short, ok := speculativeShort[method]
	if !ok || k != float64(int(k)) || k < 1 {
		return v
	}
	// The canonical form, read back through JSON so its numbers compare
	// as the value's do.
	var want map[string]any
	b, _ := json.Marshal(short(int(k)))
	_ = json.Unmarshal(b, &want)
	if !maps.EqualFunc(cfg, want, func(a, b any) bool { return a == b }) {
		return v
	}
	return method + ":" + strconv.Itoa(int(k))
}

// SplitValues splits a list of flag values typed as one text ("auto,fp8",
// or speculative decoding's `off,{"method":"mtp","num_speculative_tokens":2}`)
// at its commas, except inside a JSON object or array or a quoted string,
// so a JSON value stays whole. Values are trimmed; empty ones are dropped.
func SplitValues(s string) []string {
	var out []string
	depth, quoted, escaped, start := 0, false, false, 0
	flush := func(end int) {
		if v := strings.TrimSpace(s[start:end]); v != "" {
			out = append(out, v)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}
