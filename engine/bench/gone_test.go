package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// TestServerDiesMidCell is issue 29's repro on the simulator: the server
// dies in cell 0×1 (its warm-up, its window, or just after it), as a
// process that is killed (the port refuses connections) and as the exit
// fault (--fault-exit-after: connections closed unanswered). The cell it
// died in is Failed with the moment, no cell is measured after the death,
// and the run ends at once with a *ServerGoneError that counts what was
// kept: the death is found by a probe after the first failed connection or
// before the next cell, not by waiting out idle waits and two failed cells.
//
// The kill in the window comes at the first live-rate report, once a real
// second: windows of 20 s at speed 10 last 2 real seconds, so it falls
// inside one however the ramp goes.
func TestServerDiesMidCell(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through whole cells in real time (5 s or more): skipped with -short (make test runs it)")
	}
	points := []struct {
		name string
		// at reports whether event e is the moment to kill.
		at     func(e rundoc.Event) bool
		reason *regexp.Regexp // of cell 0×1; nil: it was measured before
	}{
		{"warm-up", func(e rundoc.Event) bool {
			return e.Kind == rundoc.EventCellProgress && e.Index == 1 && strings.HasPrefix(e.Message, "warming up")
		}, regexp.MustCompile(`^the server (closed every connection|stopped) in the warm-up`)},
		{"window", func(e rundoc.Event) bool {
			return e.Kind == rundoc.EventCellProgress && e.Index == 1 && e.LiveTokS > 0
		}, regexp.MustCompile(`^the server closed every connection \d+\.\d s into the window and (refused new ones|closed new ones unanswered)`)},
		{"between cells", func(e rundoc.Event) bool {
			return e.Kind == rundoc.EventCellDone && e.Index == 1
		}, nil},
	}
	for _, kind := range []string{"process killed", "exit fault"} {
		for _, p := range points {
			t.Run(kind+"/"+p.name, func(t *testing.T) {
				s, hs, c := startSimServer(t, tinyConfig(t, 10))
				kill := func() {
					if kind == "exit fault" {
						s.Kill()
						return
					}
					hs.Listener.Close()
					hs.CloseClientConnections()
				}
				var (
					once     sync.Once
					killedAt time.Time
				)
				plan := rundoc.Plan{Contexts: []int{0, 512}, Concurrency: []int{1, 2, 4}, PrefillContexts: []int{512},
					DurationS: 20, MaxOutput: 64}
				r := &bench.Runner{Client: c, Plan: plan, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
					if p.at(e) {
						once.Do(func() { killedAt = time.Now(); kill() })
					}
				})}
				run, err := r.Run(context.Background())
				took := time.Since(killedAt)
				if killedAt.IsZero() {
					t.Fatalf("the kill point never came: %v", err)
				}
				var gone *bench.ServerGoneError
				if !errors.As(err, &gone) {
					t.Fatalf("err = %v, want *ServerGoneError", err)
				}
				t.Logf("%s (%v after the kill)", err, took)
				if took > 5*time.Second {
					t.Errorf("the run ended %v after the kill, want within 5 s", took)
				}
				if run.Status != rundoc.RunFailed || !strings.Contains(run.Error, "stopped answering") {
					t.Errorf("run %s, error %q", run.Status, run.Error)
				}
				if len(run.Cells) != 2 {
					t.Fatalf("%d cells, want 2 (prefill 512, decode 0×1): nothing after the death", len(run.Cells))
				}
				cell := run.Cells[1]
				kept := 1
				if p.reason == nil {
					if !cell.Status.Ran() {
						t.Errorf("cell 0×1 measured before the death reads %s: %s", cell.Status, cell.Reason)
					}
					kept = 2
					if gone.Cell != "" || !strings.Contains(gone.Where, "after cell decode 0×1, before cell decode 0×2") {
						t.Errorf("moment %q %q", gone.Cell, gone.Where)
					}
				} else {
					if cell.Status != rundoc.StatusFailed || !p.reason.MatchString(cell.Reason) {
						t.Errorf("cell 0×1: %s %q, want Failed matching %s", cell.Status, cell.Reason, p.reason)
					}
					if gone.Cell != "decode 0×1" {
						t.Errorf("gone in cell %q, want decode 0×1", gone.Cell)
					}
				}
				if gone.Kept != kept || gone.Total != 7 {
					t.Errorf("kept %d of %d, want %d of 7", gone.Kept, gone.Total, kept)
				}
				wantProbe := "refuses connections"
				if kind == "exit fault" {
					wantProbe = "closes connections without answering"
				}
				var ge *client.GoneError
				if !errors.As(err, &ge) || !strings.Contains(ge.Error(), wantProbe) {
					t.Errorf("evidence %v, want %q", ge, wantProbe)
				}
			})
		}
	}
}

// TestResumeMeasuresOnlyWhatIsMissing: a run stopped by a dead server is
// resumed against a fresh one into the same document; the cells it kept
// stay byte for byte, the one the server died in and those never run are
// measured, and the run completes. A server that serves another model is
// refused.
func TestResumeMeasuresOnlyWhatIsMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through whole cells in real time (5 s or more): skipped with -short (make test runs it)")
	}
	cfg := tinyConfig(t, 10)
	s, c := startSim(t, cfg)
	plan := rundoc.Plan{Contexts: []int{0, 512}, Concurrency: []int{1, 2}, PrefillContexts: []int{512}, DurationS: 20, MaxOutput: 64}
	var firstETA, resumeETA time.Duration
	first, err := (&bench.Runner{Client: c, Plan: plan, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventRunStarted {
			firstETA = e.ETA
		}
		if e.Kind == rundoc.EventCellProgress && e.Index == 2 && e.LiveTokS > 0 {
			s.Kill()
		}
	})}).Run(context.Background())
	var gone *bench.ServerGoneError
	if !errors.As(err, &gone) || len(first.Cells) != 3 || first.Cells[2].Status != rundoc.StatusFailed {
		t.Fatalf("first attempt: %v, %d cells", err, len(first.Cells))
	}
	keptJSON := func(cells []rundoc.Cell) map[string]string {
		out := map[string]string{}
		for _, c := range cells {
			if c.Status != rundoc.StatusFailed {
				b, err := json.Marshal(c)
				if err != nil {
					t.Fatal(err)
				}
				out[c.Label()] = string(b)
			}
		}
		return out
	}
	before := keptJSON(first.Cells)
	if len(before) != 2 {
		t.Fatalf("%d kept cells, want 2", len(before))
	}

	_, c2 := startSim(t, cfg)
	doc := *first
	var measured []string
	run, err := (&bench.Runner{Client: c2, Plan: first.Plan, Doc: &doc, Kept: first.Cells, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventCellDone {
			measured = append(measured, e.Cell.Label())
		}
		if e.Kind == rundoc.EventRunStarted {
			resumeETA = e.ETA
		}
	})}).Run(context.Background())
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if run.UUID != first.UUID || run.Status != rundoc.RunComplete || len(run.Cells) != 5 {
		t.Fatalf("resumed run %s %s with %d cells, want %s complete with 5", run.UUID, run.Status, len(run.Cells), first.UUID)
	}
	if resumeETA <= 0 || resumeETA >= firstETA {
		t.Errorf("the resume's estimate is %v, the whole run's %v: the kept cells take no time", resumeETA, firstETA)
	}
	if want := []string{"decode 0×2", "decode 512×1", "decode 512×2"}; !slices.Equal(measured, want) {
		t.Errorf("measured %q, want %q", measured, want)
	}
	after := keptJSON(run.Cells)
	for label, b := range before {
		if after[label] != b {
			t.Errorf("kept cell %s changed:\n%s\n%s", label, b, after[label])
		}
	}
	for _, c := range run.Cells {
		if !bench.KeepOnResume(c.Status) {
			t.Errorf("%s has no result after the resume: %s %s", c.Label(), c.Status, c.Reason)
		}
	}

	other := cfg
	other.Model = "someone/else"
	_, c3 := startSim(t, other)
	doc = *first
	_, err = (&bench.Runner{Client: c3, Plan: first.Plan, Doc: &doc, Kept: first.Cells}).Run(context.Background())
	var mm *bench.ResumeMismatchError
	if !errors.As(err, &mm) || mm.Field != "model" {
		t.Errorf("resume on another model: %v, want a model mismatch", err)
	}
}

// hangWriter passes a stream through until hung is set, then holds every
// write (the connection stays open, silent) until the client leaves: a
// server process that stopped answering without closing its connections.
type hangWriter struct {
	http.ResponseWriter
	ctx  context.Context
	hung *atomic.Bool
}

func (h *hangWriter) Write(b []byte) (int, error) {
	if h.hung.Load() {
		<-h.ctx.Done()
		return 0, h.ctx.Err()
	}
	return h.ResponseWriter.Write(b)
}

func (h *hangWriter) Flush() { h.ResponseWriter.(http.Flusher).Flush() }

// TestSilentStreamsOfAGoneServer is the issue's own repro: the server stops
// answering mid-window without closing its streams (nothing comes for the
// rest of the window) and refuses new connections. No request fails, so
// the window runs to its close, where the probe finds the server gone: the
// cell is Failed with the moment of its last token instead of a quiet
// Valid figure of fewer tokens spread over the window.
func TestSilentStreamsOfAGoneServer(t *testing.T) {
	s, err := sim.New(tinyConfig(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	var hung atomic.Bool
	h := s.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&hangWriter{ResponseWriter: w, ctx: r.Context(), hung: &hung}, r)
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, err := client.New(hs.URL, client.WithConcurrency(8))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdle)
	var once sync.Once
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 20, MaxOutput: 512}
	run, err := (&bench.Runner{Client: c, Plan: plan, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventCellProgress && e.Index == 0 && e.LiveTokS > 0 {
			once.Do(func() { hung.Store(true); hs.Listener.Close() })
		}
	})}).Run(context.Background())
	var gone *bench.ServerGoneError
	if !errors.As(err, &gone) || len(run.Cells) != 1 {
		t.Fatalf("err = %v with %d cells, want a ServerGoneError after the first", err, len(run.Cells))
	}
	cell := run.Cells[0]
	want := regexp.MustCompile(`^the server stopped answering \d+\.\d s into the window and refused new connections`)
	if cell.Status != rundoc.StatusFailed || !want.MatchString(cell.Reason) {
		t.Errorf("cell 0×1: %s %q, want Failed matching %s", cell.Status, cell.Reason, want)
	}
	if cell.OutputTokens == 0 {
		t.Error("the figures measured before the server went silent were not kept for the record")
	}
	t.Log(cell.Reason)
}
