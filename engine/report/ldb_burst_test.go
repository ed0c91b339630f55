package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// burstRun is a run with one sustained and one burst cell at 0×4.
func burstRun() *rundoc.Run {
	return &rundoc.Run{
		Schema: rundoc.Schema, UUID: "5f0c1f5e-8a41-4d0e-b1c3-0c7f2f4b9a10", Status: rundoc.RunComplete,
		CreatedAt: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC), Origin: rundoc.OriginMeasured, Simulated: true,
		Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, PrefillContexts: []int{}, DurationS: 15, Window: rundoc.WindowFixed,
			MaxOutput: 64, Burst: rundoc.BurstAfter},
		Server: rundoc.Server{Model: "tiny", Engine: "simulated", KVCapacitySource: rundoc.KVSourceMetrics},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 330.5, TTFTMs: 25,
				CompletedRequests: 20, OutputTokens: 4957, MeasuredS: 15},
			{Phase: rundoc.PhaseBurst, Context: 0, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 322.1, TotalTokSCI95: 1.46,
				TTFTMs: 26.1, TTFTP90Ms: 30.2, TTFTP99Ms: 31.5, CompletedRequests: 16, OutputTokens: 1024, MeasuredS: 3.179,
				CellBurst: rundoc.CellBurst{RequestCount: 16, WarmupRequests: 4, LatencyMs: 785.3, LatencyMsCI95: 3.71, LatencyP90Ms: 793.5,
					LatencyP99Ms: 797.9, LatencyMeanMs: 786.2, RequestsPerS: 5.033, RequestsPerSCI95: 0.0229}},
		},
	}
}

// TestLDBBurstRoundTrip (issue 39): a burst cell goes to the tool's
// burst_results, in its schema (benchmark_mode "request-count", K as
// request_count_target, latencies in seconds), never into results[] or
// summary_table, with run_burst in the metadata; the export imports back
// as the same run, and, stripped of what only RigBench writes (as the tool
// itself would write it), still gives the burst cell with its figures.
func TestLDBBurstRoundTrip(t *testing.T) {
	run := burstRun()
	var buf bytes.Buffer
	if err := report.WriteLDBJSON(&buf, run); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	meta := doc["metadata"].(map[string]any)
	if meta["run_burst"] != true || meta["burst_e2e_status"] != "completed" || meta["burst_requests_per_concurrency"] != float64(rundoc.BurstPerConcurrency) {
		t.Errorf("metadata: run_burst %v, burst_e2e_status %v, burst_requests_per_concurrency %v",
			meta["run_burst"], meta["burst_e2e_status"], meta["burst_requests_per_concurrency"])
	}
	results, burst := doc["results"].([]any), doc["burst_results"].([]any)
	if len(results) != 1 || len(burst) != 1 {
		t.Fatalf("%d results and %d burst_results, want one each", len(results), len(burst))
	}
	b := burst[0].(map[string]any)
	for key, want := range map[string]any{"benchmark_mode": "request-count", "request_count_target": 16.0, "request_count": 16.0,
		"warmup_request_count": 4.0, "completed_request_count": 16.0, "request_latency_p50": 0.7853, "request_latency_p99": 0.7979,
		"aggregate_tps": 322.1, "ttft_p50": 0.0261} {
		if f, ok := want.(float64); ok {
			if g, _ := b[key].(float64); math.Abs(g-f) > 1e-9 {
				t.Errorf("burst_results[0].%s = %v, want %v", key, b[key], want)
			}
		} else if b[key] != want {
			t.Errorf("burst_results[0].%s = %v, want %v", key, b[key], want)
		}
	}
	if r := results[0].(map[string]any); r["benchmark_mode"] != "duration" {
		t.Errorf("results[0].benchmark_mode = %v, want duration", r["benchmark_mode"])
	}
	if s := doc["burst_summary_table"].(map[string]any)["0"].(map[string]any)["4"]; s != 322.1 {
		t.Errorf("burst_summary_table 0/4 = %v, want 322.1", s)
	}
	if s := doc["summary_table"].(map[string]any)["0"].(map[string]any)["4"]; s != 330.5 {
		t.Errorf("summary_table 0/4 = %v, want the sustained 330.5", s)
	}

	back, err := report.ReadLDBJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Find(rundoc.PhaseBurst, 0, 4); got == nil || !reflect.DeepEqual(*got, run.Cells[1]) {
		t.Errorf("burst cell read back %+v\nwant %+v", got, run.Cells[1])
	}

	// As the tool writes it: without RigBench's own fields.
	for _, k := range []string{"rigbench_run", "rigbench_plan", "rigbench_run_uuid", "written_by", "rigbench_name"} {
		delete(meta, k)
	}
	for _, e := range append(results, burst...) {
		delete(e.(map[string]any), "rigbench_status")
	}
	plain, _ := json.Marshal(doc)
	tool, err := report.ReadLDBJSON(plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(tool.Cells) != 2 || tool.Find(rundoc.PhaseDecode, 0, 4) == nil || tool.Plan.Burst != rundoc.BurstAfter {
		t.Fatalf("cells %+v, want the sustained 0×4 and the burst 0×4", tool.Cells)
	}
	got := tool.Find(rundoc.PhaseBurst, 0, 4)
	if got == nil || got.Status != rundoc.StatusValid || got.RequestCount != 16 || got.WarmupRequests != 4 || got.CompletedRequests != 16 ||
		!near(got.LatencyMs, 785.3) || !near(got.LatencyP90Ms, 793.5) || !near(got.LatencyP99Ms, 797.9) || !near(got.LatencyMeanMs, 786.2) ||
		got.TotalTokS != 322.1 || !near(got.TTFTMs, 26.1) || got.TBTMs != 0 || got.AvgActive != 0 {
		t.Fatalf("the tool's burst cell read as %+v", got)
	}
	// Requests/s is not in the tool's layout: completed ÷ measured seconds.
	if want := 16 / 3.179; got.RequestsPerS != want {
		t.Errorf("requests/s %v, want %v", got.RequestsPerS, want)
	}
	if h := rundoc.HeadlineOf(tool); h.Best == nil || h.Best.Phase != rundoc.PhaseDecode {
		t.Errorf("the imported run's headline is %+v, want the sustained cell", h.Best)
	}
}

// near: milliseconds read from the tool's seconds, to a float's last bits.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// A --request-count file of the tool holds its request-count cells in
// results[]: they read as burst cells, apart from any sustained one.
func TestLDBRequestCountResults(t *testing.T) {
	doc := `{"metadata":{"version":"0.4.29","decode_mode":"request-count","context_lengths":[0],"concurrency_levels":[2],"duration_per_test":15},` +
		`"prefill":{},"results":[{"concurrency":2,"context_tokens":0,"benchmark_mode":"request-count","request_count":8,` +
		`"request_count_target":8,"completed_request_count":8,"aggregate_tps":99.5,"measurement_seconds":4,"request_latency_p50":0.9}]}`
	r, err := report.ReadRunData([]byte(doc), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Find(rundoc.PhaseBurst, 0, 2)
	if c == nil || c.RequestCount != 8 || !near(c.LatencyMs, 900) || c.RequestsPerS != 2 || r.Find(rundoc.PhaseDecode, 0, 2) != nil {
		t.Errorf("cells %+v", r.Cells)
	}
	if r.Plan.Burst != rundoc.BurstOnly {
		t.Errorf("plan burst %q, want only: the run has no sustained cell, so no decode matrix to draw", r.Plan.Burst)
	}
}
