package bench_test

import (
	"context"
	"math"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// startSim serves a simulator on 127.0.0.1 for one test.
func startSim(t *testing.T, cfg sim.Config) (*sim.Server, *client.Client) {
	t.Helper()
	s, _, c := startSimServer(t, cfg)
	return s, c
}

// startSimServer is startSim with the HTTP server too, for tests that cut
// its connections as a dying process would.
func startSimServer(t *testing.T, cfg sim.Config) (*sim.Server, *httptest.Server, *client.Client) {
	t.Helper()
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, err := client.New(hs.URL, client.WithAPIKey(cfg.APIKey), client.WithConcurrency(32))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdle)
	return s, hs, c
}

func tinyConfig(t *testing.T, speed float64) sim.Config {
	t.Helper()
	cfg := sim.DefaultConfig()
	p, err := sim.ProfileByName("tiny")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profile, cfg.Speed, cfg.Seed = p, speed, 1
	return cfg
}

// TestRunAgainstSimulator is the end-to-end check of METHOD.md: statuses
// follow the simulator's KV capacity, and throughput and TTFT agree with
// what the simulator says it served.
func TestRunAgainstSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through whole cells in real time (5 s or more): skipped with -short (make test runs it)")
	}
	const speed = 10
	cfg := tinyConfig(t, speed)
	// 200 ms of simulated API overhead per request (20 ms real at speed 10)
	// makes TTFT large enough that loopback and scheduling jitter on a busy
	// 2-core machine stay well inside the 10% bound.
	cfg.Profile.APIBaseS = 0.2
	srv, c := startSim(t, cfg)
	plan := rundoc.Plan{
		Contexts:        []int{0, 512, 1024},
		Concurrency:     []int{1, 4, 16},
		PrefillContexts: []int{1024},
		DurationS:       15, // 1.5 s of real time at speed 10
		MaxOutput:       256,
	}
	var events []rundoc.EventKind
	r := &bench.Runner{Client: c, Plan: plan, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		// Progress lines before the run starts (the first requests) say
		// what the run waits for; the run's own events follow.
		if e.Kind != rundoc.EventRunProgress {
			events = append(events, e.Kind)
		}
	})}
	run, err := r.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if run.Plan.SimSpeed != speed {
		t.Errorf("plan sim_speed %v, want %v from the simulator's /version", run.Plan.SimSpeed, speed)
	}
	if run.Status != rundoc.RunComplete || run.Server.KVCapacityTokens != srv.KVCapacityTokens() ||
		run.Server.KVCapacitySource != rundoc.KVSourceMetrics || !run.Server.HasTokenize || !run.Simulated {
		t.Fatalf("run %s, server %+v; sim capacity %d", run.Status, run.Server, srv.KVCapacityTokens())
	}
	if len(run.Cells) != 1+9 {
		t.Fatalf("%d cells, want 10", len(run.Cells))
	}
	if events[0] != rundoc.EventRunStarted || events[len(events)-1] != rundoc.EventRunDone {
		t.Errorf("events start %v end %v", events[0], events[len(events)-1])
	}

	truth := srv.Truth()
	for _, cell := range run.Cells {
		if cell.Phase == rundoc.PhasePrefill {
			if cell.Status != rundoc.StatusValid || cell.PromptTokens != 1024 || cell.PromptTokS <= 0 {
				t.Errorf("prefill cell %+v", cell)
			}
			continue
		}
		want := bench.DecodeStatus(cell.Context, cell.Concurrency, plan.MaxOutput, bench.Limits{MaxModelLen: srv.MaxModelLen(), KVCapacity: srv.KVCapacityTokens()})
		if want == "" {
			want = rundoc.StatusValid
		}
		if cell.Status != want {
			t.Errorf("cell %d×%d: status %q (%s), want %q", cell.Context, cell.Concurrency, cell.Status, cell.Reason, want)
			continue
		}
		if !cell.Status.Ran() {
			continue
		}
		// Context 0 sends the seed tool's generation request alone, at its
		// size (METHOD.md: Terms), not a prompt of a few tokens.
		if cell.PromptTokens != rundoc.PromptTokens(cell.Context) {
			t.Errorf("cell %d×%d: prompt of %d tokens", cell.Context, cell.Concurrency, cell.PromptTokens)
		}
		// The truth is in real time; the cell is in the simulated card's
		// time (speed 10: rates ÷ 10, milliseconds × 10).
		from := cell.WindowStart
		to := from.Add(time.Duration(plan.DurationS / speed * float64(time.Second)))
		simFrom := srv.SimAt(from)
		// The cell's TTFT is over every request it sent, from its first
		// send (RampS before the window opened) to the window's close, as
		// long as its first token came before the close; the truth is
		// taken over the same requests (the window's alone would leave out
		// the ramp's, and on a loaded machine the two medians of two or
		// three requests parted by more than the bounds below).
		sent := from.Add(-time.Duration(cell.RampS/speed*float64(time.Second)) - time.Millisecond)
		served, ttfts := 0, []float64{}
		for _, rec := range truth {
			// Tokens by their stamps, the card's time the runner reads
			// (wall times move with a busy host's late handlers).
			served += rec.TokensBetweenSim(simFrom, simFrom+plan.DurationS)
			if rec.Arrived.After(sent) && rec.Arrived.Before(to) && !rec.FirstToken.IsZero() && rec.FirstToken.Before(to) {
				// In the card's time: the runner reads the simulator's
				// stamps, so the host's delays, which the wall times
				// include ×speed, are in neither.
				ttfts = append(ttfts, (rec.SimFirstTokenS-rec.SimArrivedS)*1000)
			}
		}
		truthTokS := float64(served) / plan.DurationS
		if d := math.Abs(cell.TotalTokS-truthTokS) / truthTokS; d > 0.03 {
			t.Errorf("cell %d×%d: total %.1f tok/s, simulator served %.1f (%.1f%% off)", cell.Context, cell.Concurrency, cell.TotalTokS, truthTokS, d*100)
		}
		sort.Float64s(ttfts)
		truthTTFT := bench.Median(ttfts)
		// The client's TTFT runs from its send, which the simulator takes
		// as the request's arrival, to the first token's stamp, so it can
		// never be shorter than the server's (less a real millisecond of
		// clock granularity). It may be longer by what a busy 2-core CI
		// machine running the race detector adds: 10% or 8 real
		// milliseconds, whichever is larger. A wrong definition of TTFT
		// (the role chunk, the headers, the last token) misses by far more
		// than either bound.
		if lo, hi := truthTTFT-speed, truthTTFT+math.Max(0.10*truthTTFT, 8*speed); cell.TTFTMs < lo || cell.TTFTMs > hi {
			t.Errorf("cell %d×%d: TTFT %.2f ms, simulator %.2f ms (allowed %.2f to %.2f)", cell.Context, cell.Concurrency, cell.TTFTMs, truthTTFT, lo, hi)
		}
		if cell.AvgActive < 0.95*float64(cell.Concurrency) || cell.TokenCountSource != client.SourceContinuousUsage {
			t.Errorf("cell %d×%d: avg_active %.2f source %s", cell.Context, cell.Concurrency, cell.AvgActive, cell.TokenCountSource)
		}
		if cell.ServerStats == nil || cell.ServerStats.Samples < 1 {
			t.Errorf("cell %d×%d: no server samples", cell.Context, cell.Concurrency)
		}
		t.Logf("%5d × %2d  %-15s total %7.1f tok/s (truth %7.1f)  ttft %6.2f ms (truth %6.2f)  tbt %.2f ms  active %.2f",
			cell.Context, cell.Concurrency, cell.Status, cell.TotalTokS, truthTokS, cell.TTFTMs, truthTTFT, cell.TBTMs, cell.AvgActive)
	}
}

// TestQueueingIsDetected: a server that runs at most 2 sequences holds the
// rest of N = 4 waiting. The client still has all 4 in flight (avg_active
// = 4), so only the server's waiting gauge can tell, and it must, also on a
// simulator 20 times fast whose 30 s windows last 1.5 real seconds. The
// baseline scrape taken before the window is marked as such (T ≤ 0) and
// left out of the window's gauges.
func TestQueueingIsDetected(t *testing.T) {
	const speed = 20
	cfg := tinyConfig(t, speed)
	cfg.MaxNumSeqs = 2
	_, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2, 4}, DurationS: 30, MaxOutput: 64}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, cell := range run.Cells {
		st := cell.ServerStats
		if st == nil || len(cell.ServerSamples) < 2 {
			t.Fatalf("cell 0×%d: %d server samples", cell.Concurrency, len(cell.ServerSamples))
		}
		// One sample per second of the simulated card's time, as on a real one.
		// (At least 10 of the 30: a loaded CI machine can delay ticks.)
		if st.Samples < 10 {
			t.Errorf("cell 0×%d: %d samples in a 30 s window, want about 30", cell.Concurrency, st.Samples)
		}
		if base := cell.ServerSamples[0]; base.T > 0 {
			t.Errorf("cell 0×%d: first sample %+v, want the baseline taken before the window (T ≤ 0)", cell.Concurrency, base)
		}
		if st.KVUsageMax <= 0 || st.RunningMean < 1.5 {
			t.Errorf("cell 0×%d: KV use max %.4f, running mean %.2f; the window's gauges should show the requests", cell.Concurrency, st.KVUsageMax, st.RunningMean)
		}
		want, waiting := rundoc.StatusValid, 0.0
		if cell.Concurrency == 4 {
			want, waiting = rundoc.StatusQueued, 1
		}
		if cell.Status != want || st.WaitingMax < waiting {
			t.Errorf("cell 0×%d: %s (%s), waiting max %.0f; want %s", cell.Concurrency, cell.Status, cell.Reason, st.WaitingMax, want)
		}
	}
}

// TestETANeverBelowTheCellsLeft: when a cell overruns its estimate (here
// the clock jumps an hour as it starts, as a warm-up far slower than
// predicted would), the ETA shown during it still covers the cells after
// it, rather than reading 0 s while minutes of work remain.
func TestETANeverBelowTheCellsLeft(t *testing.T) {
	const speed = 10
	_, c := startSim(t, tinyConfig(t, speed))
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 10, MaxOutput: 64}
	var skew atomic.Int64
	var etas []time.Duration
	r := &bench.Runner{Client: c, Plan: plan,
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) },
		Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
			switch {
			case e.Kind == rundoc.EventCellStarted && e.Index == 0:
				skew.Store(int64(time.Hour))
			case e.Kind == rundoc.EventCellProgress && e.Index == 0:
				etas = append(etas, e.ETA)
			}
		})}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The second cell alone is a 10 s window: 1 s of real time at speed 10.
	rest := time.Duration(plan.DurationS / speed * float64(time.Second))
	if len(etas) == 0 {
		t.Fatal("no progress events during the first cell")
	}
	for _, eta := range etas {
		if eta < rest {
			t.Errorf("ETA %v during the first cell, want at least the %v the second cell takes", eta, rest)
		}
	}
}

// TestRampTimesOut: a server that never reaches steady state (a stream's
// every request waits two seconds for its first token, so tokens come in
// bursts with silence between) is measured anyway once the ramp limit
// passes: the cell records warmup_timed_out, its ramp and what did not
// hold, and says so in its reason (METHOD.md: Decode cells, step 3).
func TestRampTimesOut(t *testing.T) {
	// At 20×, where checks are 50 ms of real time apart: on a starved host
	// they can fall seconds of card time apart, each then seeing new
	// tokens, and a rule of "tokens since the last check" once opened this
	// window at 25 s. Silences are now read from the tokens' own times
	// (TestSilencesBreakTheHoldHoweverSparseTheChecks).
	cfg := tinyConfig(t, 20)
	cfg.Profile.APIBaseS = 2 // a two-second wait before every request's first token
	_, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 5, MaxOutput: 16}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cell := run.Cells[0]
	if !cell.Status.Ran() {
		t.Fatalf("cell: %s (%s)", cell.Status, cell.Reason)
	}
	limit := rundoc.SteadyLimit(0).Seconds()
	if !cell.WarmupTimedOut || cell.RampS < limit || cell.RampS > limit+2 {
		t.Errorf("warmup_timed_out %v after a ramp of %g s, want true after %g s", cell.WarmupTimedOut, cell.RampS, limit)
	}
	if !strings.Contains(cell.Reason, "steady state did not come within 1 min") || !strings.Contains(cell.Readiness, "streams_with_tokens=") {
		t.Errorf("reason %q, readiness %q: want the timeout and what did not hold", cell.Reason, cell.Readiness)
	}
	if run.Plan.WindowOpens != rundoc.OpensSteady {
		t.Errorf("plan records window_opens %q, want %q", run.Plan.WindowOpens, rundoc.OpensSteady)
	}
}
