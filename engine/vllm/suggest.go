package vllm

// suggestions are the values a sweep (engine/tune) offers first for a flag:
// the settings whose effect on speed is worth a measurement (shared/VLLM.md,
// "Flags worth a form field"). Flags not listed here fall back on their
// catalog entry (see Suggestions).
var suggestions = map[string][]string{
	"--kv-cache-dtype":         {"auto", "fp8"},
	"--max-num-seqs":           {"16", "32", "64", "128"},
	"--max-num-batched-tokens": {"2048", "8192"},
	"--gpu-memory-utilization": {"0.85", "0.92"},
	"--tensor-parallel-size":   {"1", "2"},
	"--block-size":             {"16", "32"},
	"--max-model-len":          {"16384", "32768"},
	// Speculative decoding in the short form a sweep reads
	// (SpeculativeValue): off, and an MTP head drafting 1 to 3 tokens.
	SpeculativeFlag: {"off", "mtp:1", "mtp:2", "mtp:3"},
}

// Suggestions returns the values a sweep proposes for a flag given by any
// spelling: the list above when there is one, both states of a boolean
// ("true", "false"), or an enum's first two allowed values. It returns nil
// for a flag the catalog does not know or that RigBench manages.
func Suggestions(name string) []string {
	f, _, ok := Lookup(name)
	if !ok || f.Managed {
		return nil
	}
	if s, ok := suggestions[f.Name]; ok {
		return append([]string(nil), s...)
	}
	switch {
	case f.Type == KindBool:
		return []string{"true", "false"}
	case f.Type == KindEnum && len(f.Allowed) >= 2:
		return append([]string(nil), f.Allowed[:2]...)
	}
	return nil
}

// Tunable reports whether a sweep may vary the flag: a catalog flag that
// RigBench does not manage and whose values are not free text or JSON,
// and --speculative-config, whose values a sweep writes as "off" and
// "METHOD:TOKENS".
func Tunable(name string) bool {
	f, _, ok := Lookup(name)
	if ok && f.Name == SpeculativeFlag {
		return true // varied by its short form (SpeculativeValue)
	}
	return ok && !f.Managed && f.Type != KindString && f.Type != KindJSON
}
