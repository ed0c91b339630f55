package report

import (
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Burst cells in llm_decode_bench's layout (METHOD.md: Burst cells). The
// tool writes its burst / end-to-end cells (--run-burst) in burst_results,
// with the per-cell schema of results[], benchmark_mode "request-count",
// and their totals in burst_summary_table; a --request-count run writes
// request-count cells in results[] too. RigBench writes its burst cells
// to burst_results and reads a request-count cell from either list as a
// burst cell.

// ldbRequestCount is the tool's benchmark_mode of a burst cell; its
// sustained cells say "duration" (older versions "sustain").
const ldbRequestCount = "request-count"

// ldbBurstMeta adds the metadata of the tool's burst mode: whether the run
// measured burst cells, after the matrix (run_burst) or instead of it
// (decode_mode "request-count", request_count), and K.
func ldbBurstMeta(meta map[string]any, r *rundoc.Run) {
	meta["run_burst"] = r.Plan.Burst == rundoc.BurstAfter
	meta["burst_e2e_status"] = "not_run_use_--run-burst"
	if len(r.BurstCells()) > 0 {
		meta["burst_e2e_status"] = "completed"
	}
	meta["burst_request_count"] = r.Plan.RequestCount
	meta["burst_warmup_request_count"] = 0 // RigBench's warm-up is N per cell: each entry's warmup_request_count
	meta["burst_requests_per_concurrency"] = 0
	if r.Plan.RequestCount == 0 {
		meta["burst_requests_per_concurrency"] = rundoc.BurstPerConcurrency
	}
	if r.Plan.Burst == rundoc.BurstOnly {
		meta["decode_mode"], meta["request_count"] = ldbRequestCount, r.Plan.RequestCount
	}
}

// ldbBurstPlan says in an imported run's plan that it measured burst cells:
// after the matrix where it has sustained cells too, else instead of it, so
// its decode matrix is not drawn empty. A plan RigBench wrote (ours) says
// it already.
func ldbBurstPlan(run *rundoc.Run, ours bool) {
	if ours || len(run.BurstCells()) == 0 {
		return
	}
	run.Plan.Burst = rundoc.BurstOnly
	for _, c := range run.Cells {
		if c.Phase == rundoc.PhaseDecode {
			run.Plan.Burst = rundoc.BurstAfter
			return
		}
	}
}

// ldbBurstResult is one burst cell as a burst_results[] entry: a results[]
// entry (ldbResult) with the request-count fields, latencies in seconds.
func ldbBurstResult(c *rundoc.Cell, speed float64) map[string]any {
	e := ldbResult(c, speed, 0) // a burst has no drafting figures: they are over a window
	e["benchmark_mode"] = ldbRequestCount
	e["request_count"], e["request_count_target"] = c.RequestCount, c.RequestCount
	e["warmup_request_count"] = c.WarmupRequests
	delete(e, "per_request_avg_tps") // a sustained window's figure
	if !c.Status.Ran() {
		return e
	}
	for key, ms := range map[string]float64{"request_latency_avg": c.LatencyMeanMs, "request_latency_p50": c.LatencyMs,
		"request_latency_p90": c.LatencyP90Ms, "request_latency_p99": c.LatencyP99Ms} {
		if ms > 0 {
			e[key] = ms / 1000
		}
	}
	return e
}

// ldbBurstSummary adds a burst cell that ran to burst_summary_table, as
// summary_table holds the sustained ones: tok/s by context, then
// concurrency.
func ldbBurstSummary(t map[string]map[string]float64, c *rundoc.Cell) {
	if !c.Status.Ran() {
		return
	}
	k := strconv.Itoa(c.Context)
	if t[k] == nil {
		t[k] = map[string]float64{}
	}
	t[k][strconv.Itoa(c.Concurrency)] = c.TotalTokS
}

// burstCell makes a request-count entry read by decodeCell a burst cell:
// K, its warm-up, the end-to-end latencies (seconds to milliseconds) and
// requests/s over its measured seconds, which the tool does not write.
func (k *ldbChecker) burstCell(at string, r ldbCell, c *rundoc.Cell) {
	c.Phase = rundoc.PhaseBurst
	c.RequestCount = k.count(at+"request_count_target", r.RequestCountTarget)
	if c.RequestCount == 0 {
		c.RequestCount = k.count(at+"request_count", r.RequestCount)
	}
	c.WarmupRequests = k.count(at+"warmup_request_count", r.WarmupRequestCount)
	c.LatencyMeanMs = 1000 * k.seconds(at+"request_latency_avg", r.LatencyAvg)
	c.LatencyMs = 1000 * k.seconds(at+"request_latency_p50", r.LatencyP50)
	c.LatencyP90Ms = 1000 * k.seconds(at+"request_latency_p90", r.LatencyP90)
	c.LatencyP99Ms = 1000 * k.seconds(at+"request_latency_p99", r.LatencyP99)
	c.AvgActive, c.TBTMs, c.TBTP90Ms, c.TBTP99Ms, c.PerRequestTokS = 0, 0, 0, 0, 0 // a window's figures
	if c.Status.Ran() && c.MeasuredS > 0 {
		c.RequestsPerS = float64(c.CompletedRequests) / c.MeasuredS
	}
}

// ldbBurstFields are the fields of a results[] or burst_results[] entry
// that only a request-count cell fills (ldbCell embeds them).
type ldbBurstFields struct {
	BenchmarkMode      string   `json:"benchmark_mode"`
	RequestCount       *float64 `json:"request_count"`
	RequestCountTarget *float64 `json:"request_count_target"`
	WarmupRequestCount *float64 `json:"warmup_request_count"`
	LatencyAvg         *float64 `json:"request_latency_avg"`
	LatencyP50         *float64 `json:"request_latency_p50"`
	LatencyP90         *float64 `json:"request_latency_p90"`
	LatencyP99         *float64 `json:"request_latency_p99"`
}
