package bench_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// stallDeadline is how soon after the server froze the run must have
// stopped (issue 35's "done when": within 10 s, with the --resume line).
const stallDeadline = 10 * time.Second

// stallRun runs a 0–512 × 1–4 plan against srv (the tiny simulator at
// speed 10 behind it), calling freeze at the first event for which at
// says so, and returns the run, its error, and how long after the freeze
// it ended on the runner's clock (Event.Elapsed). The test's own limit
// makes the code before issue 35, which waited out a 10-minute warm-up
// after a silent window, fail instead of hang.
func stallRun(t *testing.T, c *client.Client, at func(rundoc.Event) bool, freeze func()) (*rundoc.Run, error, time.Duration) {
	t.Helper()
	var (
		once     sync.Once
		frozeAt  time.Duration
		froze    bool
		endedAt  time.Duration
		mu       sync.Mutex
		progress []string
	)
	plan := rundoc.Plan{Contexts: []int{0, 512}, Concurrency: []int{1, 2, 4}, DurationS: 30, MaxOutput: 64}
	r := &bench.Runner{Client: c, Plan: plan, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Message != "" {
			progress = append(progress, e.Message)
		}
		if at(e) {
			once.Do(func() { frozeAt, froze = e.Elapsed, true; freeze() })
		}
		if e.Kind == rundoc.EventRunDone {
			endedAt = e.Elapsed
		}
	})}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	run, err := r.Run(ctx)
	mu.Lock()
	defer mu.Unlock()
	if !froze {
		t.Fatalf("the freeze point never came (%v); progress:\n%s", err, strings.Join(progress, "\n"))
	}
	return run, err, endedAt - frozeAt
}

// checkStalled asserts what a run whose server stopped producing tokens in
// cell 0×2 must say: the cell Failed with the moment, matching reason; no
// cell Over capacity, none measured after it; the run ended within
// stallDeadline with a *ServerGoneError whose evidence is the stall and
// which keeps 0×1; and the diagnosis blames no cell on the KV cache.
func checkStalled(t *testing.T, run *rundoc.Run, err error, took time.Duration, reason *regexp.Regexp) {
	t.Helper()
	var (
		gone    *bench.ServerGoneError
		stalled *bench.StalledError
	)
	if !errors.As(err, &gone) || !errors.As(err, &stalled) {
		t.Fatalf("err = %v, want a *ServerGoneError carrying a *StalledError", err)
	}
	if took > stallDeadline {
		t.Errorf("the run ended %v after the server froze, want within %v", took, stallDeadline)
	}
	if run.Status != rundoc.RunFailed || len(run.Cells) != 2 {
		t.Fatalf("run %s with %d cells, want it failed after 0×1 and 0×2: %+v", run.Status, len(run.Cells), run.Cells)
	}
	for _, c := range run.Cells {
		if c.Status == rundoc.StatusOverCapacity {
			t.Errorf("%s reads %s: %s", c.Label(), c.Status, c.Reason)
		}
	}
	if c := run.Cells[0]; !c.Status.Ran() {
		t.Errorf("0×1, measured before the freeze, reads %s: %s", c.Status, c.Reason)
	}
	cell := run.Cells[1]
	if cell.Status != rundoc.StatusFailed || !reason.MatchString(cell.Reason) {
		t.Errorf("0×2: %s %q, want Failed matching %s", cell.Status, cell.Reason, reason)
	}
	if !strings.Contains(gone.Stopped(), "stopped producing tokens during cell decode 0×2") || gone.Kept != 1 {
		t.Errorf("the run's stop says %q (kept %d), want the stall in decode 0×2 and 0×1 kept", gone.Stopped(), gone.Kept)
	}
	for _, b := range diagnose.Run(run) {
		if b.Kind == diagnose.Capacity {
			t.Errorf("the diagnosis blames the KV cache: %s", b.Text())
		}
	}
	if b := diagnose.Cell(run, &run.Cells[1]); len(b) > 0 {
		t.Errorf("the stalled cell gets a bottleneck: %s", b[0].Text())
	}
	t.Logf("%s; the run ended %v after the freeze", cell.Reason, took)
}

// TestFrozenServerFailsTheCell is issue 35's "what was seen" 3: the server
// stops where it stands (Server.Freeze: kill -STOP, docker pause, a hung
// GPU) in cell 0×2, whose requests the KV model says fit, in its ramp
// before any token or in its window. The cell was "Over capacity: the
// server produced no output in the window" and the run went on into a
// ten-minute warm-up; it is Failed with the moment its tokens stopped, and
// the run ends within seconds as for a server that died.
func TestFrozenServerFailsTheCell(t *testing.T) {
	for _, tc := range []struct {
		name   string
		at     func(rundoc.Event) bool
		reason *regexp.Regexp
	}{
		{"ramp", func(e rundoc.Event) bool {
			return e.Kind == rundoc.EventCellProgress && e.Index == 1 && strings.HasPrefix(e.Message, "sending")
		}, regexp.MustCompile(`^the server stopped producing tokens before the cell's first token: no token came for \d+(\.\d)? s although 2 × \(0 \+ 64\) tokens fit the KV capacity of [\d,]+ tokens, and the server showed no sign of a full KV cache; it did not answer /metrics either`)},
		{"window", func(e rundoc.Event) bool {
			return e.Kind == rundoc.EventCellProgress && e.Index == 1 && e.LiveTokS > 0
		}, regexp.MustCompile(`^the server stopped producing tokens \d+\.\d s into the window: no token came for \d+(\.\d)? s although 2 × \(0 \+ 64\) tokens fit the KV capacity of [\d,]+ tokens, and the server showed no sign of a full KV cache; it did not answer /metrics either`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := startSim(t, tinyConfig(t, 10))
			run, err, took := stallRun(t, c, tc.at, s.Freeze)
			checkStalled(t, run, err, took, tc.reason)
		})
	}
}

// trickleWriter passes a stream through until on is set, then sends what
// the server writes one byte at a time, a byte every `every`, until the
// client leaves: a server (or a proxy before a hung one) whose connection
// is alive but whose tokens come far below any plausible rate.
type trickleWriter struct {
	http.ResponseWriter
	ctx   context.Context
	on    *atomic.Bool
	every time.Duration
}

func (w *trickleWriter) Write(b []byte) (int, error) {
	if !w.on.Load() {
		return w.ResponseWriter.Write(b)
	}
	for i := range b {
		select {
		case <-w.ctx.Done():
			return i, w.ctx.Err()
		case <-time.After(w.every):
		}
		if _, err := w.ResponseWriter.Write(b[i : i+1]); err != nil {
			return i, err
		}
		w.Flush()
	}
	return len(b), nil
}

func (w *trickleWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// TestTricklingServerFailsTheCell: from a moment in cell 0×2's window the
// server's completion streams trickle a byte every half second (5 s of card
// time at speed 10: an SSE event of a token takes minutes), while /metrics
// and /health answer at once. The cell is Failed with the moment, not
// measured as a slow Valid cell, and the run stops.
func TestTricklingServerFailsTheCell(t *testing.T) {
	s, err := sim.New(tinyConfig(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	var on atomic.Bool
	h := s.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			w = &trickleWriter{ResponseWriter: w, ctx: r.Context(), on: &on, every: 500 * time.Millisecond}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, err := client.New(hs.URL, client.WithConcurrency(8))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdle)
	run, err, took := stallRun(t, c, func(e rundoc.Event) bool {
		return e.Kind == rundoc.EventCellProgress && e.Index == 1 && e.LiveTokS > 0
	}, func() { on.Store(true) })
	checkStalled(t, run, err, took, regexp.MustCompile(
		`^the server stopped producing tokens \d+\.\d s into the window: no token came for \d+(\.\d)? s although 2 × \(0 \+ 64\) tokens fit the KV capacity of [\d,]+ tokens, and the server showed no sign of a full KV cache$`))
}

// TestResumeMeasuresStallVerdicts: a run recorded before issue 35 called a
// window without a token "Over capacity: the server produced no output in
// the window", and the larger N at its context "not run"; neither is
// capacity evidence, so a resume measures both again and keeps the rest
// as they were. A capacity verdict with its evidence (the server's
// refusal) and the cells not run after it are kept.
func TestResumeMeasuresStallVerdicts(t *testing.T) {
	cfg := tinyConfig(t, 10)
	_, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{0, 256}, Concurrency: []int{1, 2, 4}, DurationS: 5, MaxOutput: 64}
	first, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	old := first.Cells
	old[1].Status, old[1].Reason = rundoc.StatusOverCapacity, "the server produced no output in the window"
	old[2].Status, old[2].Reason = rundoc.StatusOverCapacity, "not run: concurrency 2 at this context already produced no output"
	old[4].Status, old[4].Reason = rundoc.StatusOverCapacity, "the server ran out of KV cache during the window: KV cache is full"
	old[5].Status, old[5].Reason = rundoc.StatusOverCapacity, "not run: concurrency 2 at this context already produced no output"
	first.Status = rundoc.RunFailed
	if n := bench.Remaining(first); n != 2 {
		t.Errorf("%d cells left to measure, want 0×2 and 0×4", n)
	}
	doc := *first
	var measured []string
	run, err := (&bench.Runner{Client: c, Plan: first.Plan, Doc: &doc, Kept: old, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventCellDone { // kept cells are not announced
			measured = append(measured, e.Cell.Label())
		}
	})}).Run(context.Background())
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got := strings.Join(measured, ", "); got != "decode 0×2, decode 0×4" {
		t.Errorf("measured %s, want decode 0×2, decode 0×4", got)
	}
	for i, cell := range run.Cells {
		switch i {
		case 1, 2:
			if !cell.Status.Ran() {
				t.Errorf("%s after the resume: %s %s", cell.Label(), cell.Status, cell.Reason)
			}
		default:
			if cell.Status != old[i].Status || cell.Reason != old[i].Reason || cell.TotalTokS != old[i].TotalTokS {
				t.Errorf("kept cell %s changed: %s %q → %s %q", cell.Label(), old[i].Status, old[i].Reason, cell.Status, cell.Reason)
			}
		}
	}
}

// TestFreezeOfThisProcessIsNotTheServersSilence: a loaded machine that
// keeps RigBench itself from running (Runner.Starved, measured by the lag
// meter where not injected) is not a server that stopped producing. Here
// the server freezes in cell 0×2's ramp and Starved says this process was
// itself frozen for the first 3 s of the silence: the stall is declared
// only once the silence less those 3 s reaches the stall limit (2 s of
// real time at speed 10, minStallReal), so no sooner than 5 s after the
// freeze, and then as a stall, with 0×1 kept.
func TestFreezeOfThisProcessIsNotTheServersSilence(t *testing.T) {
	const frozen = 3 * time.Second
	s, c := startSim(t, tinyConfig(t, 10))
	var frozeAt atomic.Int64 // UnixNano on the runner's clock, 0: not yet
	var took time.Duration
	var mu sync.Mutex
	plan := rundoc.Plan{Contexts: []int{0, 512}, Concurrency: []int{1, 2, 4}, DurationS: 30, MaxOutput: 64}
	r := &bench.Runner{Client: c, Plan: plan}
	var freezeElapsed time.Duration
	r.Starved = func() time.Duration {
		at := frozeAt.Load()
		if at == 0 {
			return 0
		}
		return min(time.Since(time.Unix(0, at)), frozen)
	}
	r.Observer = rundoc.ObserverFunc(func(e rundoc.Event) {
		mu.Lock()
		defer mu.Unlock()
		if frozeAt.Load() == 0 && e.Kind == rundoc.EventCellProgress && e.Index == 1 && strings.HasPrefix(e.Message, "sending") {
			freezeElapsed = e.Elapsed
			frozeAt.Store(time.Now().UnixNano())
			s.Freeze()
		}
		if e.Kind == rundoc.EventRunDone {
			took = e.Elapsed - freezeElapsed
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	run, err := r.Run(ctx)
	var stalled *bench.StalledError
	if !errors.As(err, &stalled) {
		t.Fatalf("err = %v, want the server's stall once the silence outlasted the process's own freeze", err)
	}
	if minimum := frozen + 2*time.Second; took < minimum {
		t.Errorf("the stall was declared %v after the server froze, want no sooner than %v (3 s of it were this process's)", took, minimum)
	}
	if len(run.Cells) != 2 || !run.Cells[0].Status.Ran() {
		t.Errorf("want 0×1 measured and 0×2 failed, got %d cells: %+v", len(run.Cells), run.Cells)
	}
	t.Logf("stall declared %v after the freeze: %v", took, err)
}
