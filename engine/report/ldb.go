package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// This file reads the result files of llm-inference-bench's
// llm_decode_bench.py (benchmark_results.json, versions 0.4.x to 0.7.x;
// the fixture is 0.4.29), the seed tool whose published runs RigBench's
// users compare with. The tool opens each decode window at steady state
// and shares one prompt per context, so an imported run says so in its
// plan.

// ldbNamespace seeds the name-based UUID of an imported llm_decode_bench
// file, so importing the same bytes twice gives the same run.
var ldbNamespace = uuid.MustParse("0b4185b0-6c2d-5a1e-9f3b-7d4e2a6c8b10")

// ldbFile is the part of benchmark_results.json RigBench reads. Numbers
// are pointers so a null (an invalid cell's throughput) reads as absent.
type ldbFile struct {
	Metadata *struct {
		Version           string   `json:"version"`
		Engine            string   `json:"engine"`
		Model             string   `json:"model"`
		Timestamp         string   `json:"timestamp"`
		DurationPerTest   *float64 `json:"duration_per_test"`
		MaxTokens         *float64 `json:"max_tokens"`
		MaxTotalTokens    *float64 `json:"max_total_tokens"`
		MetricsAvailable  *bool    `json:"metrics_available"`
		ConcurrencyLevels []int    `json:"concurrency_levels"`
		ContextLengths    []int    `json:"context_lengths"`
	} `json:"metadata"`
	Prefill map[string]ldbPrefill `json:"prefill"`
	Results []ldbCell             `json:"results"`
}

type ldbPrefill struct {
	TTFTSeconds  *float64 `json:"ttft_seconds"`
	TokPerSec    *float64 `json:"tok_per_sec"`
	PromptTokens *float64 `json:"prompt_tokens"`
}

type ldbCell struct {
	Concurrency        int      `json:"concurrency"`
	ContextTokens      int      `json:"context_tokens"`
	MeasurementSeconds *float64 `json:"measurement_seconds"`
	ClientOutputTokens *float64 `json:"client_output_tokens"`
	ServerOutputTokens *float64 `json:"server_output_tokens"`
	AggregateSource    string   `json:"aggregate_source"`
	AggregateTPS       *float64 `json:"aggregate_tps"`
	TTFTP50            *float64 `json:"ttft_p50"`
	TTFTP90            *float64 `json:"ttft_p90"`
	TTFTP99            *float64 `json:"ttft_p99"`
	ITLP50             *float64 `json:"inter_token_latency_p50"`
	ITLP90             *float64 `json:"inter_token_latency_p90"`
	ITLP99             *float64 `json:"inter_token_latency_p99"`
	TPSPerUserP50      *float64 `json:"output_tps_per_user_p50"`
	NumCompleted       *float64 `json:"completed_request_count"`
	NumErrors          *float64 `json:"num_errors"`
	AvgRunningReqs     *float64 `json:"avg_running_reqs"`
	Underfilled        bool     `json:"underfilled"`
	WarmupTimedOut     bool     `json:"warmup_timed_out"`
	WarmupDuration     *float64 `json:"warmup_duration"`
	ReadyReason        string   `json:"ready_reason"`
	TimeoutReason      string   `json:"timeout_reason"`
	CapacityLimited    bool     `json:"capacity_limited"`
}

// isLDBJSON tells llm_decode_bench's file from a RigBench run by content:
// no "schema", and a "metadata" object beside "results".
func isLDBJSON(data []byte) bool {
	var probe struct {
		Schema   json.RawMessage `json:"schema"`
		Metadata json.RawMessage `json:"metadata"`
		Results  json.RawMessage `json:"results"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return probe.Schema == nil && len(probe.Metadata) > 0 && probe.Metadata[0] == '{' && probe.Results != nil
}

// ReadLDBJSON reads llm_decode_bench's benchmark_results.json into a run
// with Origin imported: its metadata, prefill keyed by context and
// results[] cells. Its flags map to RigBench's statuses, with the tool's
// reason kept in the cell's Reason. The UUID comes from the file's bytes.
func ReadLDBJSON(data []byte) (*rundoc.Run, error) {
	var f ldbFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("it is not a valid llm_decode_bench result file (%v): run the tool again or copy the whole file", err)
	}
	if f.Metadata == nil {
		return nil, errors.New(`it has no "metadata" object, which every llm_decode_bench result file has`)
	}
	m := f.Metadata
	sum := sha256.Sum256(bytes.TrimSpace(data))
	run := &rundoc.Run{
		Schema: rundoc.Schema,
		UUID:   uuid.NewSHA1(ldbNamespace, sum[:]).String(),
		Name:   "llm-decode-bench " + m.Version,
		Status: rundoc.RunComplete,
		Origin: rundoc.OriginImported,
		Server: rundoc.Server{Model: m.Model, Engine: m.Engine, KVCapacitySource: rundoc.KVSourceUnknown},
	}
	if m.Version == "" {
		run.Name = "llm-decode-bench"
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999", m.Timestamp, time.UTC); err == nil {
		run.CreatedAt = t
	}
	if m.MetricsAvailable != nil {
		run.Server.HasMetrics = *m.MetricsAvailable
	}
	if k := num(m.MaxTotalTokens); k > 0 && k < math.MaxInt32 {
		run.Server.KVCapacityTokens = int(k)
		run.Server.KVCapacitySource = rundoc.KVSourceMetrics
	}
	run.Plan = rundoc.Plan{
		Contexts:    rundoc.SortedUnique(m.ContextLengths),
		Concurrency: rundoc.SortedUnique(m.ConcurrencyLevels),
		DurationS:   num(m.DurationPerTest),
		Window:      rundoc.WindowFixed,
		WindowOpens: rundoc.OpensSteady,
		Prompts:     rundoc.PromptsShared,
		MaxOutput:   int(math.Min(num(m.MaxTokens), rundoc.MaxContextTokens)),
	}
	run.Plan.PrefillContexts = []int{}
	keys := make([]int, 0, len(f.Prefill))
	for k := range f.Prefill {
		c, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("its prefill entry %q is not a context in tokens", k)
		}
		keys = append(keys, c)
	}
	sort.Ints(keys)
	for _, c := range keys {
		p := f.Prefill[strconv.Itoa(c)]
		run.Plan.PrefillContexts = append(run.Plan.PrefillContexts, c)
		cell := rundoc.Cell{Phase: rundoc.PhasePrefill, Context: c, Concurrency: 1, Status: rundoc.StatusValid,
			PromptTokS: num(p.TokPerSec), TTFTMs: 1000 * num(p.TTFTSeconds), PromptTokens: int(math.Min(num(p.PromptTokens), math.MaxInt32))}
		if cell.PromptTokS == 0 {
			cell.Status, cell.Reason = rundoc.StatusFailed, "llm_decode_bench recorded no prefill rate for this context."
		}
		run.Cells = append(run.Cells, cell)
	}
	for _, r := range f.Results {
		run.Cells = append(run.Cells, ldbDecodeCell(r))
	}
	if err := rundoc.ValidateRun(withDate(run)); err != nil {
		return nil, fmt.Errorf("it holds figures RigBench cannot take (%v)", err)
	}
	return run, nil
}

// withDate gives a run without a start time a placeholder for validation.
func withDate(r *rundoc.Run) *rundoc.Run {
	if !r.CreatedAt.IsZero() {
		return r
	}
	c := *r
	c.CreatedAt = time.Unix(0, 0).UTC()
	return &c
}

// ldbDecodeCell converts one results[] entry. Seconds become
// milliseconds; the tool's per-user tok/s p50 is per-request tok/s.
func ldbDecodeCell(r ldbCell) rundoc.Cell {
	c := rundoc.Cell{
		Phase: rundoc.PhaseDecode, Context: r.ContextTokens, Concurrency: r.Concurrency,
		Status:            rundoc.StatusValid,
		TotalTokS:         num(r.AggregateTPS),
		PerRequestTokS:    num(r.TPSPerUserP50),
		TTFTMs:            1000 * num(r.TTFTP50),
		TTFTP90Ms:         1000 * num(r.TTFTP90),
		TTFTP99Ms:         1000 * num(r.TTFTP99),
		TBTMs:             1000 * num(r.ITLP50),
		TBTP90Ms:          1000 * num(r.ITLP90),
		TBTP99Ms:          1000 * num(r.ITLP99),
		AvgActive:         num(r.AvgRunningReqs),
		CompletedRequests: int(math.Min(num(r.NumCompleted), math.MaxInt32)),
		OutputTokens:      int(math.Min(num(r.ClientOutputTokens), math.MaxInt32)),
		MeasuredS:         num(r.MeasurementSeconds),
		CellWindow: rundoc.CellWindow{RampS: num(r.WarmupDuration), Readiness: r.ReadyReason,
			WarmupTimedOut: r.WarmupTimedOut},
	}
	if r.AggregateSource == "openai_continuous_usage" {
		c.TokenCountSource = rundoc.TokensContinuousUsage
	}
	if r.WarmupTimedOut && r.TimeoutReason != "" {
		c.Readiness = r.TimeoutReason
	}
	var why []string
	switch {
	case r.CapacityLimited:
		c.Status = rundoc.StatusOverCapacity
		why = append(why, "llm_decode_bench marked the cell capacity_limited")
	case num(r.NumErrors) > 0:
		c.Status = rundoc.StatusFailed
		why = append(why, fmt.Sprintf("llm_decode_bench counted %g failed requests", num(r.NumErrors)))
	case r.AggregateTPS == nil || *r.AggregateTPS < 0:
		c.Status = rundoc.StatusFailed
		why = append(why, "llm_decode_bench recorded no throughput")
	case r.Underfilled:
		c.Status = rundoc.StatusQueued
		why = append(why, "llm_decode_bench marked the cell underfilled")
	case r.WarmupTimedOut:
		why = append(why, "llm_decode_bench's warm-up timed out before steady state")
	}
	if r.TimeoutReason != "" {
		why = append(why, r.TimeoutReason)
	}
	if len(why) > 0 {
		c.Reason = rundoc.CutText(strings.Join(why, ": ")+".", rundoc.MaxTextLen)
	}
	if !c.Status.Ran() {
		c.TotalTokS, c.PerRequestTokS = 0, 0 // an invalid cell's throughput is not a figure
	}
	return c
}

// num reads an optional figure: null, negative, NaN or absurd is absent.
func num(p *float64) float64 {
	if p == nil || math.IsNaN(*p) || *p < 0 || *p > maxFigure {
		return 0
	}
	return *p
}
