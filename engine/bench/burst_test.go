package bench_test

import (
	"context"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// burstTruth is the simulator's truth of a burst cell's measured requests:
// the first k requests of m tokens that arrived from the cell's first
// measured send on (WindowStart, set once its warm-up requests had all
// ended; the next cell's come after them), each one's end-to-end latency
// in the card's milliseconds, from its arrival (the client's send, which
// the simulator takes from the request's header) to its last token's
// stamp. It returns fewer than k when the simulator served fewer.
func burstTruth(srv *sim.Server, cell rundoc.Cell, k, m int) []float64 {
	from := cell.WindowStart.Add(-time.Millisecond) // WindowStart is cut to the millisecond
	var recs []sim.RequestRecord
	for _, rec := range srv.Truth() {
		if !rec.Arrived.Before(from) && rec.OutputTokens() == m && len(rec.Tokens) > 0 {
			recs = append(recs, rec)
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Arrived.Before(recs[j].Arrived) })
	var lat []float64
	for _, rec := range recs[:min(k, len(recs))] {
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
		truth := burstTruth(srv, cell, k, m)
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
	// One request of 64 tokens at 0×2 takes about 0.7 s of card time, so
	// the warm-up's wave fits in 3 s and K = 40 (twenty waves, 14 s) does
	// not. At speed 2 the warm-up has over a real second to spare on a
	// loaded machine.
	const speed = 2
	_, c := startSim(t, tinyConfig(t, speed))
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2}, DurationS: 1, MaxOutput: 64, Burst: rundoc.BurstAfter,
		RequestCount: 40, BurstLimitS: 3}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(run.Cells) != 2 || run.Cells[0].Phase != rundoc.PhaseDecode || run.Cells[1].Phase != rundoc.PhaseBurst {
		t.Fatalf("cells %v, want the decode cell, then the burst cell", phases(run.Cells))
	}
	b := run.Cells[1]
	want := "the burst did not finish its 40 requests within 3.0 s of card time ("
	if b.Status != rundoc.StatusFailed || !strings.HasPrefix(b.Reason, want) || !strings.Contains(b.Reason, "raise --burst-limit") {
		t.Errorf("burst cell %s: %q; want Failed, %q…", b.Status, b.Reason, want)
	}
	if b.CompletedRequests >= 40 {
		t.Errorf("burst cell completed %d of 40 requests within a limit that holds about four waves", b.CompletedRequests)
	}
	// The headline is the sustained cell's, never the burst's (a short
	// window on a loaded machine may leave it none).
	if h := rundoc.HeadlineOf(run); h.Best != nil && h.Best.Phase != rundoc.PhaseDecode {
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

// TestBurstStatusesAsSustained: a burst cell's status follows a decode
// cell's rules: above the server's max-num-seqs it is Requests queued (by
// the launch's flag, else by the server's waiting gauge), and over the KV
// capacity it is predicted Over capacity and sends nothing.
func TestBurstStatusesAsSustained(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through a burst in real time: skipped with -short (make test runs it)")
	}
	cfg := tinyConfig(t, 20)
	cfg.MaxNumSeqs = 2
	srv, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 5, MaxOutput: 32, Burst: rundoc.BurstOnly}
	run, err := (&bench.Runner{Client: c, Plan: plan, SlotsFromLaunch: 2}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if b := run.Cells[0]; b.Status != rundoc.StatusQueued || !strings.Contains(b.Reason, "max_num_seqs") || b.CompletedRequests != 16 {
		t.Errorf("burst 0×4 on 2 slots: %s (%s), %d completed; want Requests queued, 16", b.Status, b.Reason, b.CompletedRequests)
	}
	// Without the launch's max-num-seqs, the server's waiting gauge tells:
	// longer requests give it about ten samples of a second each.
	long := plan
	long.MaxOutput = 128
	run, err = (&bench.Runner{Client: c, Plan: long}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if b := run.Cells[0]; b.Status != rundoc.StatusQueued || !strings.Contains(b.Reason, "waiting requests") {
		t.Errorf("burst 0×4 on 2 slots it was not told of: %s (%s); want Requests queued by the waiting gauge", b.Status, b.Reason)
	}
	sent := len(srv.Truth())
	// The plan check counts N × (C + M): 4 × 32 tokens are over 100, 1 × 32
	// are not.
	plan.KVCapacityOverride = 100
	plan.Concurrency = []int{1, 4}
	run, err = (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if b := run.Find(rundoc.PhaseBurst, 0, 4); b == nil || b.Status != rundoc.StatusOverCapacity || !strings.HasPrefix(b.Reason, "predicted") {
		t.Errorf("burst 0×4 over a KV capacity of 100: %+v; want predicted Over capacity", b)
	}
	// The second run's probes, its 0×1 cell (a warm-up, 1 warm-up and 4
	// measured requests), nothing for 0×4.
	if b := run.Find(rundoc.PhaseBurst, 0, 1); b == nil || b.Status != rundoc.StatusValid || b.CompletedRequests != 4 {
		t.Errorf("burst 0×1: %+v", b)
	}
	if n := len(srv.Truth()) - sent; n > 10 {
		t.Errorf("the second run sent %d requests: the cell predicted over capacity sent some", n)
	}
}

// TestBurstCancelled: a run cancelled during a burst ends at once; the cell
// is Cancelled with the requests that finished, and the run says so.
func TestBurstCancelled(t *testing.T) {
	_, c := startSim(t, tinyConfig(t, 5))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2}, DurationS: 5, MaxOutput: 512, Burst: rundoc.BurstOnly}
	obs := rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventCellProgress && strings.HasPrefix(e.Message, "sending 8 request(s)") {
			cancel() // the measured burst has started
		}
	})
	run, err := (&bench.Runner{Client: c, Plan: plan, Observer: obs}).Run(ctx)
	if err == nil || run.Status != rundoc.RunCancelled {
		t.Fatalf("run %s, %v; want cancelled", run.Status, err)
	}
	if len(run.Cells) != 1 || run.Cells[0].Status != rundoc.StatusCancelled || run.Cells[0].CompletedRequests >= 8 {
		t.Errorf("cells %+v; want the burst cell Cancelled before its 8 requests finished", run.Cells)
	}
}
