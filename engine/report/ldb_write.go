package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// LDBLayoutVersion is the llm_decode_bench version whose layout
// WriteLDBJSON follows (metadata, prefill, results, summary_table). A
// RigBench run's file says it as metadata.layout_version, never as
// metadata.version, which in that tool's files is the version of the tool
// that measured the run.
const LDBLayoutVersion = "0.4.29"

// Fields of an llm_decode_bench file's metadata that only RigBench writes
// (docs/reports.md: llm-decode-bench), which ReadLDBJSON reads back.
const (
	// ldbWrittenBy names the writer: rundoc.WrittenBy.
	ldbWrittenBy = "written_by"
	// ldbLayoutVersion is LDBLayoutVersion.
	ldbLayoutVersion = "layout_version"
	// ldbRunUUID is the RigBench run's UUID, so importing the file into a
	// history that holds the run finds it there ("already in the
	// history") instead of adding it twice.
	ldbRunUUID = "rigbench_run_uuid"
	// ldbSimulated says whether RigBench's simulator served the run:
	// the seed tool's files do not say, RigBench's do.
	ldbSimulated = "simulated"
	// ldbRun is the whole RigBench run document (rundoc.WriteRun), so
	// the file imports back as the same run, with what the tool's layout
	// has no field for (half-widths, samples, launch, hardware).
	ldbRun = "rigbench_run"
	// ldbPlan is the RigBench run's plan (how windows ended and opened,
	// the prompt policy), which the seed tool's metadata has no field for.
	ldbPlan = "rigbench_plan"
	// ldbName is the run's name.
	ldbName = "rigbench_name"
	// ldbStatus and ldbReason (in a results[] entry) are the cell's
	// RigBench status and its reason, which the tool's flags cannot all
	// say.
	ldbStatus = "rigbench_status"
	ldbReason = "rigbench_reason"
)

// WriteLDBJSON writes r in the layout of llm_decode_bench's
// benchmark_results.json, so tools that read that tool's files read a
// RigBench run.
//
// A run imported from such a file (Source.File) is written back as the
// file came, every field kept, with metadata.written_by and the run's
// UUID added. Any other run gets every field of the layout that a cell
// holds the figure for (docs/reports.md lists them), in the units of the
// tool (seconds, tok/s), its cells in the run's own order; a field whose
// figure the cell lacks is left out rather than written as 0.
// ReadLDBJSON reads the file back as the same run.
func WriteLDBJSON(w io.Writer, r *rundoc.Run) error {
	doc, err := ldbDocument(r)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// ldbDocument is the file's JSON tree.
func ldbDocument(r *rundoc.Run) (map[string]any, error) {
	if s := r.Source; s != nil && s.Format == rundoc.SourceLDB && len(s.File) > 0 {
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(s.File))
		dec.UseNumber() // every figure back as the file spelled it
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("the run's imported file is damaged (%v): import it again", err)
		}
		meta, _ := doc["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
			doc["metadata"] = meta
		}
		if _, ok := meta[ldbWrittenBy]; !ok {
			meta[ldbWrittenBy] = rundoc.WrittenBy
		}
		meta[ldbRunUUID] = r.UUID
		return doc, nil
	}
	var whole bytes.Buffer
	if err := rundoc.WriteRun(&whole, r); err != nil {
		return nil, err
	}
	meta := map[string]any{
		ldbRun:                         json.RawMessage(whole.Bytes()),
		ldbWrittenBy:                   rundoc.WrittenBy,
		ldbLayoutVersion:               LDBLayoutVersion,
		ldbRunUUID:                     r.UUID,
		ldbName:                        r.Name,
		ldbSimulated:                   r.Simulated,
		ldbPlan:                        r.Plan,
		"engine":                       r.Server.Engine,
		"model":                        r.Server.Model,
		"timestamp":                    r.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000"),
		"decode_mode":                  "duration",
		"primary_decode_layer":         "sustained_decode",
		"duration_per_test":            r.Plan.DurationS,
		"request_count":                0,
		"warmup_request_count":         0,
		"standalone_prefill":           len(r.Plan.PrefillContexts) > 0,
		"prefill_only":                 len(r.Plan.Contexts) == 0,
		"skip_prefill":                 len(r.Plan.PrefillContexts) == 0,
		"max_tokens":                   r.Plan.MaxOutput,
		"ignore_eos":                   true,
		"metrics_available":            r.Server.HasMetrics,
		"concurrency_levels":           nonNil(r.Plan.Concurrency),
		"context_lengths":              nonNil(r.Plan.Contexts),
		"show_capacity_limited_values": false,
	}
	ldbBurstMeta(meta, r)
	if len(r.Plan.PrefillContexts) > 0 {
		meta["prefill_mode"] = "standalone"
	}
	if r.Server.KVCapacityTokens > 0 {
		meta["max_total_tokens"] = r.Server.KVCapacityTokens
	}
	if r.Plan.WindowOpens == rundoc.OpensSteady {
		meta["decode_warmup_seconds"] = rundoc.SteadyHold.Seconds()
	}
	prefill := map[string]any{}
	results := []map[string]any{}
	summary := map[string]map[string]float64{}
	burst, burstSummary := []map[string]any{}, map[string]map[string]float64{}
	for _, c := range r.Cells {
		switch c.Phase {
		case rundoc.PhasePrefill:
			prefill[strconv.Itoa(c.Context)] = ldbPrefillEntry(&c)
		case rundoc.PhaseDecode:
			results = append(results, ldbResult(&c, r.Plan.Speed(), r.Plan.AcceptLenRef))
			if c.Status.Ran() {
				k := strconv.Itoa(c.Context)
				if summary[k] == nil {
					summary[k] = map[string]float64{}
				}
				summary[k][strconv.Itoa(c.Concurrency)] = c.TotalTokS
			}
		case rundoc.PhaseBurst:
			burst = append(burst, ldbBurstResult(&c, r.Plan.Speed()))
			ldbBurstSummary(burstSummary, &c)
		}
	}
	return map[string]any{"metadata": meta, "prefill": prefill, "results": results, "summary_table": summary,
		"burst_results": burst, "burst_summary_table": burstSummary}, nil
}

// ldbPrefillEntry is one prefill cell: RigBench's prefill cells are their
// own cold requests timed at the client (prompt_tokens / TTFT), which the
// tool calls a standalone prefill; the server's own prompt rate, where it
// reported one, is the tool's server_validation.
func ldbPrefillEntry(c *rundoc.Cell) map[string]any {
	if !c.Status.Ran() {
		// No rate, as the tool leaves a prefill it could not measure.
		return map[string]any{"tok_per_sec": nil, ldbStatus: string(c.Status), ldbReason: c.Reason}
	}
	ttft := c.TTFTMs / 1000
	e := map[string]any{
		"ttft_seconds": ttft, "prefill_seconds": ttft, "tok_per_sec": c.PromptTokS,
		"client_ttft_seconds": ttft, "client_tok_per_sec": c.PromptTokS,
		"prompt_tokens": c.PromptTokens, "samples": max(1, c.CompletedRequests), "method": "standalone",
		ldbStatus: string(c.Status),
	}
	if c.ServerPromptTokS > 0 {
		e["server_validation"] = map[string]any{
			"method": "server_metrics", "tok_per_sec": c.ServerPromptTokS, "prefill_seconds": c.ServerPrefillS,
			"prompt_tokens": c.ServerPromptTokens, "samples": max(1, c.CompletedRequests),
		}
	}
	return e
}

// ldbResult is one decode cell as a results[] entry. Figures the cell
// holds go to every field of the layout that means them; speed converts
// the window's card seconds to the wall seconds it lasted (the demo's
// simulator runs speed times faster than the card it imitates).
func ldbResult(c *rundoc.Cell, speed, refLen float64) map[string]any {
	e := map[string]any{
		"concurrency": c.Concurrency, "context_tokens": c.Context, "benchmark_mode": "duration",
		"request_count_target": 0, "warmup_request_count": 0,
		"underfilled": c.Status == rundoc.StatusQueued, "capacity_limited": c.Status == rundoc.StatusOverCapacity,
		"warmup_timed_out": c.WarmupTimedOut, "ready_reason": c.Readiness,
		ldbStatus: string(c.Status),
	}
	if c.Reason != "" {
		e[ldbReason] = c.Reason
	}
	if !c.Status.Ran() {
		// The tool writes an invalid cell's throughput as null and its
		// reason as timeout_reason, and no drafting figures.
		e["aggregate_tps"], e["timeout_reason"] = nil, c.Reason
		if c.Status == rundoc.StatusFailed {
			e["num_errors"] = max(1, c.CellChecks.RetriedRequests)
		}
		return e
	}
	e["num_errors"], e["timeout_reason"] = 0, ""
	ldbSpecFields(e, c, refLen)
	if c.WarmupTimedOut {
		e["timeout_reason"] = c.Readiness
	}
	put := func(key string, v float64) {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			e[key] = v
		}
	}
	switch c.TokenCountSource {
	case rundoc.TokensContinuousUsage:
		e["aggregate_source"] = "openai_continuous_usage"
	case rundoc.TokensFinalUsage:
		e["aggregate_source"] = "openai_usage"
	case rundoc.TokensChunks:
		e["aggregate_source"] = "client_chunks"
	}
	e["aggregate_tps"] = c.TotalTokS
	// The tool's Per-Request column: aggregate ÷ concurrency.
	put("per_request_avg_tps", c.TotalTokS/float64(c.Concurrency))
	put("measurement_seconds", c.MeasuredS)
	put("measurement_wall_seconds", c.MeasuredS/speed)
	if c.MeasuredS > 0 {
		put("wall_time", (c.RampS+c.MeasuredS)/speed)
	}
	put("warmup_duration", c.RampS)
	if c.OutputTokens > 0 {
		e["client_output_tokens"], e["total_tokens"] = c.OutputTokens, c.OutputTokens
	}
	if c.PromptTokens > 0 {
		// The prompt the server counted for the cell's requests (one
		// document per context, or its length per stream).
		e["input_seq_len_avg"] = c.PromptTokens
	}
	if c.ServerOutputTokens > 0 {
		e["server_output_tokens"] = c.ServerOutputTokens
	}
	// One request per stream, as the tool counts a duration cell's.
	e["request_count"], e["completed_request_count"] = c.Concurrency, c.CompletedRequests
	put("ttft_p50", c.TTFTMs/1000)
	put("ttft_p90", c.TTFTP90Ms/1000)
	put("ttft_p99", c.TTFTP99Ms/1000)
	put("inter_token_latency_p50", c.TBTMs/1000)
	put("inter_token_latency_p90", c.TBTP90Ms/1000)
	put("inter_token_latency_p99", c.TBTP99Ms/1000)
	put("output_tps_per_user_p50", c.PerRequestTokS)
	put("avg_running_reqs", c.AvgActive)
	if s := c.ServerStats; s != nil {
		e["max_queue_reqs"] = s.WaitingMax
	}
	if len(c.ServerSamples) > 0 {
		// Gauges over the window; the baseline sample (t ≤ 0) is before it.
		var maxRun, sumWait float64
		n := 0
		for _, s := range c.ServerSamples {
			if s.T <= 0 {
				continue
			}
			maxRun = max(maxRun, s.Running)
			sumWait += s.Waiting
			n++
		}
		if n > 0 {
			e["max_running_reqs"], e["avg_queue_reqs"] = maxRun, sumWait/float64(n)
		}
	}
	return e
}

func nonNil(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}
