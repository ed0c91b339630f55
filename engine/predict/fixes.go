package predict

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Fix is one change that makes a launch fit.
type Fix struct {
	// Flags are the vLLM flags to set (none for a change no flag makes,
	// another card).
	Flags []vllm.FlagValue `json:"flags,omitempty"`
	// Says is the change in one sentence, with what it gives up.
	Says string `json:"says"`
}

// Args is the fix as command-line words: "--max-model-len 20480".
func (f Fix) Args() []string {
	var out []string
	for _, fl := range f.Flags {
		out = append(out, fl.Name, fl.Value)
	}
	return out
}

// candidate is a change fixes tries: flags to set and, for quantisation,
// the weights' new size (0: unchanged).
type candidate struct {
	flags   []vllm.FlagValue
	weights float64
	says    string
}

func set(name, value string) []vllm.FlagValue { return []vllm.FlagValue{{Name: name, Value: value}} }

// fixes are the changes that make a launch that does not start start, in
// this order (each changes less of what the user asked for than the
// next): each candidate is predicted again and kept only when it
// fits. Memory short of the weights tries more of the card, more cards,
// 8-bit weights (with the longest max_model_len their cache holds when
// the model's own is too long) and a larger card; a KV cache too small for
// max_model_len tries the longest length that fits, an 8-bit cache and
// more of the card; a batch budget below max_num_seqs raises it.
func fixes(in Input, pr *Prediction) []Fix {
	s := pr.Settings
	var out []Fix
	try := func(c candidate) {
		if fitsWith(in, c.flags, c.weights) {
			out = append(out, Fix{Flags: c.flags, Says: c.says})
		}
	}
	m := pr.Memory
	nonKV := m.WeightsGiB + m.ActivationGiB + m.OtherGiB
	needKV := float64(s.MaxModelLen) * m.KVBytesPerToken / vllm.GiB
	switch {
	case strings.Contains(pr.Problem, "max_num_batched_tokens"):
		try(candidate{flags: set("--max-num-batched-tokens", strconv.Itoa(s.MaxNumSeqs)), says: "raise the step's token budget to max-num-seqs, as vLLM requires"})
		try(candidate{flags: set("--max-num-seqs", strconv.Itoa(s.MaxNumBatchedTokens)), says: "run at most as many requests at once as the step's token budget"})
	case strings.Contains(pr.Problem, "World size"):
		try(candidate{flags: set("--tensor-parallel-size", strconv.Itoa(pr.Cards)), says: fmt.Sprintf("use the %d cards the rig has", pr.Cards)})
	default:
		if m.KVGiB > 0 && m.KVTokens < s.MaxModelLen {
			// The cache holds some tokens, too few for one whole-length
			// request: shorten the length first (nothing else changes).
			if l := longest(m.KVTokens); l > 0 {
				try(candidate{flags: set("--max-model-len", strconv.Itoa(l)), says: fmt.Sprintf("serve requests of up to %d tokens, the most the KV cache holds", l)})
			}
			if s.KVCacheDtype == "auto" {
				try(candidate{flags: set("--kv-cache-dtype", "fp8"), says: "halve the KV cache's bytes per token (an 8-bit cache: a small loss of quality is possible)"})
			}
		}
		if u := math.Ceil(100*(nonKV+needKV)/m.TotalGiB) / 100; u > s.Utilization && u <= 0.95 {
			try(candidate{flags: set("--gpu-memory-utilization", strconv.FormatFloat(u, 'f', 2, 64)),
				says: fmt.Sprintf("let vLLM use %.0f%% of the card's memory (less is left for the desktop and other programs)", 100*u)})
		}
		for tp := s.TensorParallel + 1; tp <= pr.Cards; tp++ {
			try(candidate{flags: set("--tensor-parallel-size", strconv.Itoa(tp)), says: fmt.Sprintf("spread the model over %d cards", tp)})
		}
		if m.KVGiB <= 0 && pr.Model.WeightBits >= 16 {
			q := candidate{flags: set("--quantization", "fp8"), weights: pr.Model.WeightsGiB / 2,
				says: fmt.Sprintf("quantise the weights to 8 bits on load (about %.1f GiB instead of %.1f; a small loss of quality is possible)", pr.Model.WeightsGiB/2, pr.Model.WeightsGiB)}
			if fitsWith(in, q.flags, q.weights) {
				out = append(out, Fix{Flags: q.flags, Says: q.says})
			} else if kv := kvWith(in, q.flags, q.weights); longest(kv) > 0 {
				l := longest(kv)
				q.flags = append(q.flags, vllm.FlagValue{Name: "--max-model-len", Value: strconv.Itoa(l)})
				q.says += fmt.Sprintf(", and serve requests of up to %d tokens, the most its KV cache then holds", l)
				try(q)
			}
		}
	}
	if len(out) == 0 || m.KVGiB <= 0 {
		if c, ok := smallestCardThatFits(in); ok {
			out = append(out, Fix{Says: fmt.Sprintf("a card with more memory: it fits on the %s (%.0f GiB)", c.Name, c.MemoryGiB)})
		}
	}
	return out
}

// longest is the longest max_model_len a cache of kv tokens serves, in
// whole thousands (1024) of tokens, 0 when under 4K: a length too short to
// be worth serving is no fix.
func longest(kv int) int {
	if l := kv / 1024 * 1024; l >= 4096 {
		return l
	}
	return 0
}

// with is in with flags set and, when weights > 0, weights of that size.
func with(in Input, flags []vllm.FlagValue, weights float64) Input {
	for _, f := range flags {
		if f.Name == "--quantization" {
			continue // not a sizing flag: the weights' size carries it
		}
		in.Args = withFlag(in.Args, f.Name, f.Value)
	}
	if weights > 0 {
		in.Model.WeightsGiB = weights
	}
	in.Plan = zeroPlan
	return in
}

// fitsWith says whether the launch fits with the change.
func fitsWith(in Input, flags []vllm.FlagValue, weights float64) bool {
	pr, err := predictOnce(with(in, flags, weights))
	return err == nil && pr.Fits
}

// kvWith is the KV cache in tokens with the change (0 when none is left).
func kvWith(in Input, flags []vllm.FlagValue, weights float64) int {
	pr, err := predictOnce(with(in, flags, weights))
	if err != nil {
		return 0
	}
	return pr.Memory.KVTokens
}

// smallestCardThatFits is the known card with the least memory, then
// bandwidth, on which the launch fits as it is.
func smallestCardThatFits(in Input) (Card, bool) {
	cs := Cards()
	slices.SortStableFunc(cs, func(a, b Card) int {
		return cmp.Or(cmp.Compare(a.MemoryGiB, b.MemoryGiB), cmp.Compare(a.BandwidthGBs, b.BandwidthGBs))
	})
	for _, c := range cs {
		if c.MemoryGiB <= in.Card.MemoryGiB {
			continue
		}
		in2 := in
		in2.Card, in2.Plan = c, zeroPlan
		in2.Efficiency = Prior(c, in.Model.ID)
		if pr, err := predictOnce(in2); err == nil && pr.Fits {
			return c, true
		}
	}
	return Card{}, false
}

// withFlag is args with flag set to value, as the launch form sets a flag
// (vllm.LaunchConfig.Set: every spelling of it, aliases included, replaced).
// Arguments vLLM's parser refuses are kept, with the flag appended: the
// prediction then refuses them in vLLM's words.
func withFlag(args []string, flag, value string) []string {
	cfg, err := vllm.ParseArgs(args)
	if err != nil {
		return append(append([]string(nil), args...), flag, value)
	}
	cfg.Set(flag, value)
	return cfg.LaunchArgs()
}
