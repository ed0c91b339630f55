package bench_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// burstTruth is the simulator's truth of a burst cell's measured requests:
// those that arrived from the cell's first measured send (WindowStart)
// until its last token, with M tokens; each one's end-to-end latency in the
// card's milliseconds, from its arrival (the client's send, which the
// simulator takes from the request's header) to its last token's stamp.
func burstTruth(srv *sim.Server, cell rundoc.Cell, speed float64, m int) []float64 {
	from := cell.WindowStart.Add(-time.Millisecond)
	to := cell.WindowStart.Add(time.Duration(cell.MeasuredS/speed*float64(time.Second)) + time.Millisecond)
	var lat []float64
	for _, rec := range srv.Truth() {
		if rec.Arrived.Before(from) || rec.Arrived.After(to) || rec.OutputTokens() != m || len(rec.Tokens) == 0 {
			continue
		}
		lat = append(lat, (rec.Tokens[len(rec.Tokens)-1].SimS-rec.SimArrivedS)*1000)
	}
	return lat
}

// TestBurstCellsMatchTruth is issue 39's Done-when for burst cells: at
// context 0 × 1, 4, 16 with K = 4N, each cell sends exactly K measured
// requests, all finish, and its end-to-end latency p50 equals the median of
// the simulator's own per-request latencies within 1%. The burst cells are
// apart from the sustained ones: --request-count runs no decode cell.
func TestBurstCellsMatchTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through three bursts in real time: skipped with -short (make test runs it)")
	}
	const speed, m = 10, 64
	cfg := tinyConfig(t, speed)
	srv, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 4, 16}, DurationS: 15, MaxOutput: m, Burst: rundoc.BurstOnly}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(run.Cells) != 3 {
		t.Fatalf("%d cells, want the 3 burst cells alone", len(run.Cells))
	}
	for _, cell := range run.Cells {
		k := 4 * cell.Concurrency
		if cell.Phase != rundoc.PhaseBurst || cell.Status != rundoc.StatusValid || cell.RequestCount != k || cell.CompletedRequests != k {
			t.Errorf("cell %s: phase %s status %s (%s), K %d, completed %d; want burst, Valid, K = completed = %d",
				cell.Name(), cell.Phase, cell.Status, cell.Reason, cell.RequestCount, cell.CompletedRequests, k)
			continue
		}
		truth := burstTruth(srv, cell, speed, m)
		if len(truth) != k {
			t.Errorf("cell %s: the simulator served %d requests of %d tokens in the burst, want K = %d", cell.Name(), len(truth), m, k)
			continue
		}
		want := bench.Median(truth)
		if d := math.Abs(cell.LatencyMs-want) / want; d > 0.01 {
			t.Errorf("cell %s: latency p50 %.1f ms, simulator %.1f ms (%.2f%% off, want within 1%%)", cell.Name(), cell.LatencyMs, want, 100*d)
		}
		if cell.LatencyP90Ms < cell.LatencyMs || cell.LatencyP99Ms < cell.LatencyP90Ms || cell.TTFTMs <= 0 || cell.TTFTMs >= cell.LatencyMs ||
			cell.RequestsPerS <= 0 || cell.TotalTokS <= 0 || cell.OutputTokens != k*m || cell.WarmupRequests != cell.Concurrency {
			t.Errorf("cell %s: figures out of order: %+v", cell.Name(), cell.CellBurst)
		}
		// requests/s × the burst's length is the requests it completed.
		if got := cell.RequestsPerS * cell.MeasuredS; math.Abs(got-float64(k)) > 0.01*float64(k) {
			t.Errorf("cell %s: %.3f req/s over %.3f s is %.2f requests, want %d", cell.Name(), cell.RequestsPerS, cell.MeasuredS, got, k)
		}
		t.Logf("%s  latency p50 %.1f ms ± %.2f (truth %.1f)  p90 %.1f  p99 %.1f  TTFT %.1f ms  %.3f ± %.4f req/s  %.1f ± %.2f tok/s",
			cell.Name(), cell.LatencyMs, cell.LatencyMsCI95, want, cell.LatencyP90Ms, cell.LatencyP99Ms, cell.TTFTMs,
			cell.RequestsPerS, cell.RequestsPerSCI95, cell.TotalTokS, cell.TotalTokSCI95)
	}
}

// TestBurstAfterMatrixAndLimit: --burst runs the burst cells after the
// sustained matrix, and a burst that outlasts its time limit fails with the
// sentence that says how many requests finished and what to change.
func TestBurstAfterMatrixAndLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through a window and a burst in real time: skipped with -short (make test runs it)")
	}
	const speed = 10
	_, c := startSim(t, tinyConfig(t, speed))
	// One request of 64 tokens at 0×2 takes about 0.7 s of card time, so
	// the warm-up's wave fits in 1.5 s and K = 8 (four waves) does not.
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2}, DurationS: 5, MaxOutput: 64, Burst: rundoc.BurstAfter, BurstLimitS: 1.5}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(run.Cells) != 2 || run.Cells[0].Phase != rundoc.PhaseDecode || run.Cells[1].Phase != rundoc.PhaseBurst {
		t.Fatalf("cells %v, want the decode cell, then the burst cell", phases(run.Cells))
	}
	b := run.Cells[1]
	want := "the burst did not finish its 8 requests within 1.5 s of card time ("
	if b.Status != rundoc.StatusFailed || !strings.HasPrefix(b.Reason, want) || !strings.Contains(b.Reason, "raise --burst-limit") {
		t.Errorf("burst cell %s: %q; want Failed, %q…", b.Status, b.Reason, want)
	}
	if b.CompletedRequests >= 8 {
		t.Errorf("burst cell completed %d of 8 requests within a limit that holds about two waves", b.CompletedRequests)
	}
	if h := rundoc.HeadlineOf(run); h.Best == nil || h.Best.Phase != rundoc.PhaseDecode {
		t.Errorf("headline %+v, want the sustained cell", h.Best)
	}
}

func phases(cells []rundoc.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Label())
	}
	return out
}
