package sim

import (
	"fmt"
	"io"
	"strconv"
)

// histogram is a Prometheus histogram with fixed upper bounds, in simulated
// seconds (what a real card would have shown).
type histogram struct {
	bounds []float64
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

func newHistogram(bounds ...float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds))}
}

func (h *histogram) observe(v float64) {
	h.sum += v
	h.n++
	for i, b := range h.bounds {
		if v <= b {
			h.counts[i]++
			return
		}
	}
}

// write prints the histogram in Prometheus text format with cumulative
// buckets.
func (h *histogram) write(w io.Writer, name, help, labels string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%s,le=\"%s\"} %d\n", name, labels, strconv.FormatFloat(b, 'f', -1, 64), cum)
	}
	fmt.Fprintf(w, "%s_bucket{%s,le=\"+Inf\"} %d\n", name, labels, h.n)
	fmt.Fprintf(w, "%s_sum{%s} %s\n", name, labels, strconv.FormatFloat(h.sum, 'g', -1, 64))
	fmt.Fprintf(w, "%s_count{%s} %d\n", name, labels, h.n)
}

// histograms are vLLM's request histograms, with vLLM's buckets: latencies
// in simulated seconds, and prefill's computed tokens.
type histograms struct {
	ttft, itl, e2e, queue *histogram
	// prefill is vllm:request_prefill_time_seconds (first schedule to
	// first token); prefillTokens is vllm:request_prefill_kv_computed_tokens
	// (prompt tokens not served by the prefix cache).
	prefill, prefillTokens *histogram
}

// newHistograms makes vLLM's histograms; the prefill-tokens buckets go up
// to maxModelLen (vLLM's build_1_2_5_buckets(max_model_len)).
func newHistograms(maxModelLen int) histograms {
	long := []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
	return histograms{
		prefill:       newHistogram(append([]float64(nil), long...)...),
		prefillTokens: newHistogram(buckets125(maxModelLen)...),
		ttft:          newHistogram(0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560),
		itl:           newHistogram(0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80),
		e2e:           newHistogram(long...),
		queue:         newHistogram(append([]float64(nil), long...)...),
	}
}

// buckets125 is 1, 2, 5, 10, 20, 50, … up to max: vLLM's
// build_1_2_5_buckets.
func buckets125(max int) []float64 {
	var out []float64
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p > max {
				return out
			}
			out = append(out, float64(m*p))
		}
	}
}
