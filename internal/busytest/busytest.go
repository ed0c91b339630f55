// Package busytest is what the tests of a demo on a busy machine share
// (issue 35 item 2): a load on every core from inside the test, as
// `stress-ng --cpu N` beside RigBench would be, and the comparison of a
// busy fast run with a slow one. The CLI's and the app's tests both use it,
// so the two front ends are held to one rule.
package busytest

import (
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// HogCores keeps every core of the machine busy until the returned stop
// is called, as `stress-ng --cpu N` beside RigBench would: one spinning
// goroutine per core, each on its own OS thread and with a GOMAXPROCS slot
// of its own, so that the operating system, not Go's scheduler, shares
// the cores between them and the run.
func HogCores() (stop func()) {
	n := runtime.NumCPU()
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(prev + n)
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for x := 0; !done.Load(); x++ {
			}
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
		runtime.GOMAXPROCS(prev)
	}
}

// AgreeAcrossSpeeds checks every decode cell of fast (the busy run at a
// high speed) against the same cell of slow and returns how many Valid
// cells it compared (issue 35 item 2). Two measurements of a cell's total
// tok/s agree when their 95% intervals overlap (|a − b| ≤ ±a + ±b), or
// are within 2% of each other, the drift between two windows. A cell
// of fast that says it could not keep up must carry its evidence
// (client_lag_s) and is not compared, nor is one that is Unreliable with
// its reason where slow's is Valid (its own evidence said it was wrong);
// every other cell must have slow's status and, Valid, a ± of at most 10%
// of its total tok/s.
func AgreeAcrossSpeeds(t testing.TB, slow, fast *rundoc.Run) int {
	t.Helper()
	compared := 0
	for _, f := range fast.Cells {
		if f.Phase != rundoc.PhaseDecode {
			continue
		}
		name := f.Name()
		s := slow.Find(rundoc.PhaseDecode, f.Context, f.Concurrency)
		if s == nil {
			t.Fatalf("cell %s is missing from the slow run", name)
		}
		t.Logf("%s: %g× busy %s %.1f ± %.1f tok/s, TTFT %.0f ± %.0f ms, lag %.3f s over %.1f s, ramp %.1f s, %q | slow %s %.1f ± %.1f tok/s, TTFT %.0f ± %.0f ms, %.1f s, ramp %.1f s",
			name, fast.Plan.Speed(), f.Status, f.TotalTokS, f.TotalTokSCI95, f.TTFTMs, f.TTFTMsCI95, f.ClientLagS, f.MeasuredS, f.RampS, f.Reason,
			s.Status, s.TotalTokS, s.TotalTokSCI95, s.TTFTMs, s.TTFTMsCI95, s.MeasuredS, s.RampS)
		if strings.Contains(f.Reason, "could not keep up") {
			if f.ClientLagS <= 0 {
				t.Errorf("%s says the client could not keep up but records no lag: %s", name, f.Reason)
			}
			continue
		}
		if f.Status == rundoc.StatusUnreliable && s.Status == rundoc.StatusValid {
			// Its own evidence contradicted it, and it says how ("counter
			// +28%" when the busy client lost count): not Valid, and so
			// not compared; it must say why.
			if f.Reason == "" {
				t.Errorf("%s: Unreliable without a reason", name)
			}
			continue
		}
		if f.Status != s.Status {
			t.Errorf("%s: %s at %g× on a busy machine (%s), %s at the slow speed, and it does not say it could not keep up",
				name, f.Status, fast.Plan.Speed(), f.Reason, s.Status)
			continue
		}
		if f.Status != rundoc.StatusValid {
			continue
		}
		if f.TotalTokSCI95 > 0.1*f.TotalTokS {
			t.Errorf("%s: Valid with %.1f ± %.1f tok/s, a ± above 10%% of the figure", name, f.TotalTokS, f.TotalTokSCI95)
		}
		// Total tok/s is the figure the window measures; TTFT, per-request
		// tok/s and TBT are taken over each request's whole stream, ramp
		// included, and so also depend on how the client's sends reached
		// the card, which a machine busier than this test's can spread
		// (the cell then says so, from a tenth of the ramp): they are
		// logged, not judged.
		// The ± is the random error of the window's rate; the simulator is
		// nearly deterministic, so it can round to 0.0 in both runs, and two
		// windows differ by the slow drift of the rate within them (up to
		// 1.6%, METHOD.md: Adaptive windows), which no ± covers. 2% of the
		// figure is that floor.
		if d := math.Abs(f.TotalTokS - s.TotalTokS); d > max(f.TotalTokSCI95+s.TotalTokSCI95, 0.02*s.TotalTokS) {
			t.Errorf("%s: total %.1f ± %.1f tok/s at %g× on a busy machine, %.1f ± %.1f at the slow speed: the intervals do not meet",
				name, f.TotalTokS, f.TotalTokSCI95, fast.Plan.Speed(), s.TotalTokS, s.TotalTokSCI95)
		}
		if f.TotalTokSCI95 <= 0 {
			t.Errorf("%s: Valid without a ± on total tok/s", name)
		}
		t.Logf("%s: per-request %.1f ± %.1f vs %.1f ± %.1f tok/s, TBT %.1f ± %.1f vs %.1f ± %.1f ms",
			name, f.PerRequestTokS, f.PerRequestTokSCI95, s.PerRequestTokS, s.PerRequestTokSCI95, f.TBTMs, f.TBTMsCI95, s.TBTMs, s.TBTMsCI95)
		compared++
	}
	return compared
}

// FastSpeeds are the speeds a busy run is tried at, fastest first: the
// issue's 100×, then slower ones while every cell of the faster run said
// it could not keep up (a machine busier than `stress-ng --cpu N` beside
// the test, such as CI with other packages' tests, can starve every cell
// at 100×). Each cell that says so is right to; the test needs one that
// did keep up to have compared anything.
var FastSpeeds = []float64{100, 30, 10}

// AgreeAtSomeSpeed runs fast (a busy run at the given speed) at each of
// FastSpeeds in turn until AgreeAcrossSpeeds compares a cell with slow,
// and fails the test when none does. Every run is held to
// AgreeAcrossSpeeds' rule, the ones whose every cell said it could not
// keep up included.
func AgreeAtSomeSpeed(t testing.TB, slow *rundoc.Run, fast func(speed float64) *rundoc.Run) {
	t.Helper()
	for _, speed := range FastSpeeds {
		if AgreeAcrossSpeeds(t, slow, fast(speed)) > 0 {
			return
		}
		t.Logf("at %g× every cell said the client could not keep up: trying a lower speed", speed)
	}
	t.Fatalf("no cell was Valid and compared at any of %v×: the test checked nothing", FastSpeeds)
}
