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
// are pointers so a null (an invalid cell's throughput) reads as absent;
// Results is raw so a file without the list is told from an empty one.
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
		// What RigBench's own files add (ldb_write.go).
		WrittenBy string          `json:"written_by"`
		RunUUID   string          `json:"rigbench_run_uuid"`
		Simulated *bool           `json:"simulated"`
		Plan      json.RawMessage `json:"rigbench_plan"`
		Run       json.RawMessage `json:"rigbench_run"`
		Name      string          `json:"rigbench_name"`
	} `json:"metadata"`
	Prefill map[string]ldbPrefill `json:"prefill"`
	Results *[]ldbCell            `json:"results"`
	// BurstResults are the tool's burst cells (ldb_burst.go).
	BurstResults []ldbCell `json:"burst_results"`
}

type ldbPrefill struct {
	TTFTSeconds  *float64 `json:"ttft_seconds"`
	TokPerSec    *float64 `json:"tok_per_sec"`
	PromptTokens *float64 `json:"prompt_tokens"`
	Samples      *float64 `json:"samples"`
	// What RigBench's own files add: the cell's status and reason.
	Status string `json:"rigbench_status"`
	Reason string `json:"rigbench_reason"`
}

type ldbCell struct {
	Concurrency        *float64 `json:"concurrency"`
	ContextTokens      *float64 `json:"context_tokens"`
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
	ldbSpec
	// What RigBench's own files add: the cell's status and reason.
	Status string `json:"rigbench_status"`
	Reason string `json:"rigbench_reason"`
	ldbBurstFields
}

// Physical bounds of the figures an llm_decode_bench file may hold
// (docs/reports.md: Importing). A figure beyond its bound is refused with
// its field's name: it is a damaged file or a tool's overflow, not a
// measurement.
const (
	// ldbMaxSeconds bounds every duration: 10^6 s (11.6 days), far above
	// any window, warm-up or time to first token.
	ldbMaxSeconds = 1e6
	// ldbMaxCount bounds token and request counts.
	ldbMaxCount = math.MaxInt32
)

// isLDBJSON tells llm_decode_bench's file from a RigBench run by content:
// no "schema", and a "metadata" object. A file without "results" is
// still that tool's, and ReadLDBJSON says what it lacks.
func isLDBJSON(data []byte) bool {
	var probe struct {
		Schema   json.RawMessage `json:"schema"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return probe.Schema == nil && len(probe.Metadata) > 0 && probe.Metadata[0] == '{'
}

// ReadLDBJSON reads llm_decode_bench's benchmark_results.json into a run
// with Origin imported: its metadata, prefill keyed by context and
// results[] cells. Its flags map to RigBench's statuses, with the tool's
// reason kept in the cell's Reason. The UUID comes from the file's bytes,
// or, in a file RigBench wrote, is the run's own (rigbench_run_uuid), so
// the run is found in the history it came from. The file itself is kept
// in the run's Source, so an export in this layout gives back every field.
//
// A figure that is negative, beyond its physical bound (rundoc.MaxTokS for
// rates, ldbMaxSeconds, ldbMaxCount) or missing where a cell needs it is
// refused with a sentence naming the field.
func ReadLDBJSON(data []byte) (*rundoc.Run, error) {
	var f ldbFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("it is not a valid llm_decode_bench result file (%v): run the tool again or copy the whole file", err)
	}
	if f.Metadata == nil {
		return nil, errors.New(`it has no "metadata" object, which every llm_decode_bench result file has`)
	}
	if f.Results == nil {
		return nil, errors.New(`it has no "results" list, where llm_decode_bench writes its decode cells: copy the whole file`)
	}
	m := f.Metadata
	if len(m.Run) > 0 && !bytes.Equal(m.Run, []byte("null")) {
		// RigBench wrote the file: the run it came from, whole.
		r, err := rundoc.ReadRun(bytes.NewReader(m.Run))
		if err != nil {
			return nil, fmt.Errorf("its metadata.rigbench_run, the RigBench run it was exported from, cannot be read (%v): export the run again", err)
		}
		return r, nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return nil, fmt.Errorf("it is not a valid llm_decode_bench result file (%v): run the tool again or copy the whole file", err)
	}
	sum := sha256.Sum256(bytes.TrimSpace(data))
	run := &rundoc.Run{
		Schema: rundoc.Schema,
		UUID:   uuid.NewSHA1(ldbNamespace, sum[:]).String(),
		Name:   "llm-decode-bench " + m.Version,
		Status: rundoc.RunComplete,
		Origin: rundoc.OriginImported,
		Server: rundoc.Server{Model: m.Model, Engine: m.Engine, KVCapacitySource: rundoc.KVSourceUnknown},
		Source: &rundoc.Source{Format: rundoc.SourceLDB, WrittenBy: m.WrittenBy, File: compact.Bytes()},
	}
	if m.Version == "" {
		run.Name = "llm-decode-bench"
	}
	if run.Source.WrittenBy == "" {
		run.Source.WrittenBy = strings.TrimSpace("llm_decode_bench " + m.Version)
	}
	run.Source.WrittenBy = rundoc.CutText(run.Source.WrittenBy, rundoc.MaxNameLen)
	if u, err := uuid.Parse(m.RunUUID); err == nil && u.String() == m.RunUUID {
		run.UUID = m.RunUUID
	}
	if m.Name != "" {
		run.Name = rundoc.CutText(m.Name, rundoc.MaxNameLen)
	}
	if m.Simulated != nil {
		run.Simulated, run.Source.ServerKnown = *m.Simulated, true
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999", m.Timestamp, time.UTC); err == nil {
		run.CreatedAt = t
	}
	if m.MetricsAvailable != nil {
		run.Server.HasMetrics = *m.MetricsAvailable
	}
	chk := &ldbChecker{}
	dur := chk.seconds("metadata.duration_per_test", m.DurationPerTest)
	maxTokens := chk.count("metadata.max_tokens", m.MaxTokens)
	if k := chk.count("metadata.max_total_tokens", m.MaxTotalTokens); k > 0 {
		run.Server.KVCapacityTokens = k
		run.Server.KVCapacitySource = rundoc.KVSourceMetrics
	}
	for i, c := range m.ContextLengths {
		chk.intRange(fmt.Sprintf("metadata.context_lengths[%d]", i), c, 0, maxContextTokens, "tokens")
	}
	for i, n := range m.ConcurrencyLevels {
		chk.intRange(fmt.Sprintf("metadata.concurrency_levels[%d]", i), n, 1, maxConcurrency, "streams")
	}
	run.Plan = rundoc.Plan{
		Contexts:    rundoc.SortedUnique(m.ContextLengths),
		Concurrency: rundoc.SortedUnique(m.ConcurrencyLevels),
		DurationS:   dur,
		Window:      rundoc.WindowFixed,
		WindowOpens: rundoc.OpensSteady,
		Prompts:     rundoc.PromptsShared,
		MaxOutput:   min(maxTokens, rundoc.MaxContextTokens),
	}
	if len(m.Plan) > 0 {
		// RigBench's own file: its plan as the run had it.
		var p rundoc.Plan
		if err := json.Unmarshal(m.Plan, &p); err != nil {
			return nil, fmt.Errorf("its metadata.rigbench_plan is not a RigBench plan (%v): export the run again", err)
		}
		run.Plan = p
	}
	run.Plan.PrefillContexts = []int{}
	keys := make([]int, 0, len(f.Prefill))
	for k := range f.Prefill {
		c, err := strconv.Atoi(k)
		if err != nil || c < 0 || c > maxContextTokens {
			return nil, fmt.Errorf("its prefill entry %q is not a context in tokens (0 to %d)", k, maxContextTokens)
		}
		keys = append(keys, c)
	}
	sort.Ints(keys)
	for _, c := range keys {
		k := strconv.Itoa(c)
		p := f.Prefill[k]
		at := "prefill[" + strconv.Quote(k) + "]."
		run.Plan.PrefillContexts = append(run.Plan.PrefillContexts, c)
		cell := rundoc.Cell{Phase: rundoc.PhasePrefill, Context: c, Concurrency: 1, Status: rundoc.StatusValid,
			PromptTokS: chk.rate(at+"tok_per_sec", p.TokPerSec), TTFTMs: 1000 * chk.seconds(at+"ttft_seconds", p.TTFTSeconds),
			PromptTokens: chk.count(at+"prompt_tokens", p.PromptTokens), CompletedRequests: chk.count(at+"samples", p.Samples)}
		if cell.PromptTokS == 0 {
			cell.Status, cell.Reason = rundoc.StatusFailed, "llm_decode_bench recorded no prefill rate for this context."
		}
		if p.Status != "" {
			st, err := ParseStatus(p.Status)
			if err != nil {
				chk.fail("its %srigbench_status: %v", at, err)
			}
			cell.Status, cell.Reason = st, rundoc.CutText(p.Reason, rundoc.MaxTextLen)
		}
		if cell.Status.Ran() && cell.PromptTokS == 0 {
			chk.fail("its %stok_per_sec is missing in a prefill the file calls measured", at)
		}
		run.Cells = append(run.Cells, cell)
	}
	if len(run.Plan.PrefillContexts) == 0 && len(m.Plan) > 0 {
		var p rundoc.Plan
		if json.Unmarshal(m.Plan, &p) == nil {
			run.Plan.PrefillContexts = nonNil(p.PrefillContexts)
		}
	}
	for i, r := range *f.Results {
		at := fmt.Sprintf("results[%d].", i)
		c := chk.decodeCell(at, r)
		if ref := chk.spec(at, r.ldbSpec, &c); ref > 0 && run.Plan.AcceptLenRef == 0 {
			run.Plan.AcceptLenRef = ref
		}
		run.Cells = append(run.Cells, c)
	}
	for i, r := range f.BurstResults {
		run.Cells = append(run.Cells, chk.decodeCell(fmt.Sprintf("burst_results[%d].", i), r))
	}
	ldbBurstPlan(run, len(m.Plan) > 0)
	if chk.err != nil {
		return nil, chk.err
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

// ldbChecker reads a file's figures, keeping the first that is refused
// as a sentence naming its field.
type ldbChecker struct{ err error }

func (k *ldbChecker) fail(format string, args ...any) {
	if k.err == nil {
		k.err = fmt.Errorf(format, args...)
	}
}

// figure reads an optional figure: null is absent (0); negative or above
// bound is refused. unit words the bound.
func (k *ldbChecker) figure(field string, p *float64, bound float64, unit string) float64 {
	switch {
	case p == nil:
		return 0
	case math.IsNaN(*p) || math.IsInf(*p, 0):
		k.fail("its %s is %v, not a number: the tool wrote a figure it did not measure; remove that cell or run the tool again", field, *p)
	case *p < 0:
		k.fail("its %s is %g, below 0, which no measurement is: the file is damaged", field, *p)
	case *p > bound:
		k.fail("its %s is %g %s, beyond the %g %s any server reaches: the file is damaged or holds no measurement there", field, *p, unit, bound, unit)
	default:
		return *p
	}
	return 0
}

func (k *ldbChecker) rate(field string, p *float64) float64 {
	return k.figure(field, p, rundoc.MaxTokS, "tok/s")
}

func (k *ldbChecker) seconds(field string, p *float64) float64 {
	return k.figure(field, p, ldbMaxSeconds, "s")
}

func (k *ldbChecker) count(field string, p *float64) int {
	return int(k.figure(field, p, ldbMaxCount, "tokens or requests"))
}

// whole reads a required whole number in [lo, hi].
func (k *ldbChecker) whole(field string, p *float64, lo, hi int, unit string) int {
	if p == nil {
		k.fail("its %s is missing, and a cell cannot be placed without it: copy the whole file", field)
		return lo
	}
	if *p != math.Trunc(*p) {
		k.fail("its %s is %g, not a whole number of %s", field, *p, unit)
		return lo
	}
	if *p < float64(lo) || *p > float64(hi) {
		k.fail("its %s is %g, outside %d to %d %s", field, *p, lo, hi, unit)
		return lo
	}
	return int(*p)
}

func (k *ldbChecker) intRange(field string, n, lo, hi int, unit string) {
	f := float64(n)
	k.whole(field, &f, lo, hi, unit)
}

// decodeCell converts results[i]. Seconds become milliseconds; the
// tool's per-user tok/s p50 is per-request tok/s.
func (k *ldbChecker) decodeCell(at string, r ldbCell) rundoc.Cell {
	c := rundoc.Cell{
		Phase:             rundoc.PhaseDecode,
		Context:           k.whole(at+"context_tokens", r.ContextTokens, 0, maxContextTokens, "tokens"),
		Concurrency:       k.whole(at+"concurrency", r.Concurrency, 1, maxConcurrency, "streams"),
		Status:            rundoc.StatusValid,
		TotalTokS:         k.rate(at+"aggregate_tps", r.AggregateTPS),
		PerRequestTokS:    k.rate(at+"output_tps_per_user_p50", r.TPSPerUserP50),
		TTFTMs:            1000 * k.seconds(at+"ttft_p50", r.TTFTP50),
		TTFTP90Ms:         1000 * k.seconds(at+"ttft_p90", r.TTFTP90),
		TTFTP99Ms:         1000 * k.seconds(at+"ttft_p99", r.TTFTP99),
		TBTMs:             1000 * k.seconds(at+"inter_token_latency_p50", r.ITLP50),
		TBTP90Ms:          1000 * k.seconds(at+"inter_token_latency_p90", r.ITLP90),
		TBTP99Ms:          1000 * k.seconds(at+"inter_token_latency_p99", r.ITLP99),
		AvgActive:         k.figure(at+"avg_running_reqs", r.AvgRunningReqs, maxConcurrency, "requests"),
		CompletedRequests: k.count(at+"completed_request_count", r.NumCompleted),
		OutputTokens:      k.count(at+"client_output_tokens", r.ClientOutputTokens),
		MeasuredS:         k.seconds(at+"measurement_seconds", r.MeasurementSeconds),
		CellWindow: rundoc.CellWindow{RampS: k.seconds(at+"warmup_duration", r.WarmupDuration), Readiness: r.ReadyReason,
			WarmupTimedOut: r.WarmupTimedOut},
	}
	c.ServerOutputTokens = k.count(at+"server_output_tokens", r.ServerOutputTokens)
	errs := k.count(at+"num_errors", r.NumErrors)
	switch r.AggregateSource {
	case "openai_continuous_usage":
		c.TokenCountSource = rundoc.TokensContinuousUsage
	case "openai_usage":
		c.TokenCountSource = rundoc.TokensFinalUsage
	case "client_chunks":
		c.TokenCountSource = rundoc.TokensChunks
	}
	if r.WarmupTimedOut && r.TimeoutReason != "" {
		c.Readiness = r.TimeoutReason
	}
	c.Readiness = rundoc.CutText(c.Readiness, rundoc.MaxTextLen)
	var why []string
	switch {
	case r.CapacityLimited:
		c.Status = rundoc.StatusOverCapacity
		why = append(why, "llm_decode_bench marked the cell capacity_limited")
	case errs > 0:
		c.Status = rundoc.StatusFailed
		why = append(why, fmt.Sprintf("llm_decode_bench counted %d failed requests", errs))
	case r.AggregateTPS == nil:
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
	if r.Status != "" {
		// RigBench's own file: the status and reason the cell had, which
		// the tool's flags cannot all say.
		st, err := ParseStatus(r.Status)
		if err != nil {
			k.fail("its %srigbench_status: %v", at, err)
		}
		c.Status, c.Reason = st, rundoc.CutText(r.Reason, rundoc.MaxTextLen)
	}
	if r.BenchmarkMode == ldbRequestCount {
		k.burstCell(at, r, &c)
	}
	if !c.Status.Ran() {
		c.TotalTokS, c.PerRequestTokS = 0, 0 // an invalid cell's throughput is not a figure
	} else if c.TotalTokS == 0 {
		k.fail("its %saggregate_tps is 0 in a cell the tool did not mark invalid: the file is damaged", at)
	}
	return c
}
