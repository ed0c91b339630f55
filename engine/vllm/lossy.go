package vllm

import "strings"

// Lossy reports whether launching with flag set to value can change what
// the model answers, not only how fast (issue 37): a KV cache stored in
// fewer bits than the model's own (KVDtypeRatio below 1) and weight
// quantization (--quantization with any method but none). Such a flag's
// speed is only worth having with a quality check: a sweep of advice that
// tries one asks a probe (engine/tune.FromAdvice), and the advice says so.
func Lossy(flag, value string) bool {
	switch flag {
	case "--kv-cache-dtype":
		r, ok := KVDtypeRatio(value)
		return ok && r < 1
	case "--quantization", "-q":
		return value != "" && !strings.EqualFold(value, "none")
	}
	return false
}
