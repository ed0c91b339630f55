package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// steadyWindow is an adaptive window of 4 streams whose live bins hold a
// card stepping every 25 ms from 100 ms on, each step giving every stream a
// token, with step times spread by sigma; started lists the streams that
// have their first token.
func steadyWindow(sigma float64, started int) *window {
	w := &window{d: 30 * time.Second, maxOutput: 8192, prompts: make([]string, 4),
		run: &rundoc.Run{Plan: rundoc.Plan{Window: rundoc.WindowAuto, Precision: 0.01, DurationS: 30}}}
	w.live = newLive(w.d, rundoc.SteadyLimit(0), len(w.prompts))
	w.live.setOpen(0) // a window opened at the first send: every offset counts from it
	rng := rand.New(rand.NewPCG(7, 8))
	for t := 100 * time.Millisecond; t < w.d; t += time.Duration(float64(25*time.Millisecond) * max(0.1, 1+sigma*rng.NormFloat64())) {
		for s := range started {
			w.live.add(s, t, 1)
		}
	}
	return w
}

// TestStopAt: a steady card's window stops at the first check after the
// 5 s minimum, at a whole bin; not before it, not while a stream waits for
// its first token, and not while the rate is too uncertain.
func TestStopAt(t *testing.T) {
	w := steadyWindow(0, 4)
	if _, ok := w.stopAt(4 * time.Second); ok {
		t.Error("stopped before the 5 s minimum")
	}
	if end, ok := w.stopAt(5*time.Second + 300*time.Microsecond); !ok || end != 5*time.Second {
		t.Errorf("steady card at 5 s: stop %v at %v, want true at 5s", ok, end)
	}
	if _, ok := steadyWindow(0, 3).stopAt(10 * time.Second); ok {
		t.Error("stopped while a stream had no token")
	}
	if _, ok := steadyWindow(3, 4).stopAt(6 * time.Second); ok {
		t.Error("stopped at ±1% on a card whose steps vary threefold")
	}
}

// TestExpectedWindow: estimates use D for fixed windows, twice the minimum
// for adaptive ones before any was measured, then the mean measured length.
func TestExpectedWindow(t *testing.T) {
	fixed := rundoc.Plan{DurationS: 30}
	auto := rundoc.Plan{DurationS: 30, Window: rundoc.WindowAuto, Precision: 0.01}
	measured := []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Status: rundoc.StatusValid, MeasuredS: 6},
		{Phase: rundoc.PhaseDecode, Status: rundoc.StatusQueued, MeasuredS: 12},
		{Phase: rundoc.PhaseDecode, Status: rundoc.StatusOverCapacity},
		{Phase: rundoc.PhasePrefill, Status: rundoc.StatusValid, MeasuredS: 100, CompletedRequests: 3},
	}
	for _, tc := range []struct {
		p     rundoc.Plan
		cells []rundoc.Cell
		want  time.Duration
	}{
		{fixed, measured, 30 * time.Second},
		{auto, nil, 10 * time.Second},
		{auto, measured, 9 * time.Second},
	} {
		if got := ExpectedWindow(tc.p, tc.cells); got != tc.want {
			t.Errorf("ExpectedWindow(%s, %d cells) = %v, want %v", tc.p.WindowMethod(), len(tc.cells), got, tc.want)
		}
	}
	if got := expectedRepeats(auto, measured); got != 3 {
		t.Errorf("expected prefill repeats %v, want the measured 3", got)
	}
	if got := expectedRepeats(fixed, measured); got != 1 {
		t.Errorf("fixed plan: %v prefill requests, want 1", got)
	}
}
