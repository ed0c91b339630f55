package report

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// ldbWriterVersion is the llm_decode_bench version whose layout
// WriteLDBJSON follows (metadata, prefill, results, summary_table).
const ldbWriterVersion = "0.4.29"

// WriteLDBJSON writes r in the layout of llm_decode_bench's
// benchmark_results.json, so tools that read that tool's files read a
// RigBench run. Only cells that ran go to results and summary_table, as
// the tool writes them; figures are in its units (seconds, tok/s).
// ReadLDBJSON reads the file back with every figure RigBench shows.
func WriteLDBJSON(w io.Writer, r *rundoc.Run) error {
	meta := map[string]any{
		"version":            ldbWriterVersion,
		"engine":             r.Server.Engine,
		"model":              r.Server.Model,
		"timestamp":          r.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000"),
		"decode_mode":        "duration",
		"duration_per_test":  r.Plan.DurationS,
		"max_tokens":         r.Plan.MaxOutput,
		"max_total_tokens":   r.Server.KVCapacityTokens,
		"metrics_available":  r.Server.HasMetrics,
		"concurrency_levels": nonNil(r.Plan.Concurrency),
		"context_lengths":    nonNil(r.Plan.Contexts),
		"ignore_eos":         true,
		"prefill_mode":       "integrated_decode_scout",
		"written_by":         "RigBench",
	}
	prefill := map[string]any{}
	results := []map[string]any{}
	summary := map[string]map[string]float64{}
	for _, c := range SortedCells(r) {
		switch {
		case c.Phase == rundoc.PhasePrefill && c.Status.Ran():
			prefill[strconv.Itoa(c.Context)] = map[string]any{
				"ttft_seconds": c.TTFTMs / 1000, "prefill_seconds": c.TTFTMs / 1000, "tok_per_sec": c.PromptTokS,
				"client_ttft_seconds": c.TTFTMs / 1000, "client_tok_per_sec": c.PromptTokS,
				"prompt_tokens": c.PromptTokens, "samples": 1, "method": "client",
			}
		case c.Phase == rundoc.PhaseDecode && c.Status.Ran():
			source := ""
			if c.TokenCountSource == rundoc.TokensContinuousUsage {
				source = "openai_continuous_usage"
			}
			results = append(results, map[string]any{
				"concurrency": c.Concurrency, "context_tokens": c.Context, "benchmark_mode": "duration",
				"measurement_seconds": c.MeasuredS, "client_output_tokens": c.OutputTokens, "aggregate_source": source,
				"aggregate_tps": c.TotalTokS, "ttft_p50": c.TTFTMs / 1000, "ttft_p90": c.TTFTP90Ms / 1000, "ttft_p99": c.TTFTP99Ms / 1000,
				"inter_token_latency_p50": c.TBTMs / 1000, "inter_token_latency_p90": c.TBTP90Ms / 1000, "inter_token_latency_p99": c.TBTP99Ms / 1000,
				"output_tps_per_user_p50": c.PerRequestTokS, "completed_request_count": c.CompletedRequests, "num_errors": 0,
				"avg_running_reqs": c.AvgActive, "underfilled": c.Status == rundoc.StatusQueued,
				"warmup_timed_out": c.WarmupTimedOut, "warmup_duration": c.RampS, "ready_reason": c.Readiness,
				"timeout_reason": "", "capacity_limited": false,
			})
			k := strconv.Itoa(c.Context)
			if summary[k] == nil {
				summary[k] = map[string]float64{}
			}
			summary[k][strconv.Itoa(c.Concurrency)] = c.TotalTokS
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"metadata": meta, "prefill": prefill, "results": results, "summary_table": summary})
}

func nonNil(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}
