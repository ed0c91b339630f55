package bench

import (
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// checkBursts marks a ramp whose one stream gets a token every 20 ms for
// burst, then nothing for gap, over and over for 60 s, and runs readiness
// checks every spacing of card time, as a starved host spaces them. When
// frozen, each gap is one in which the lag meter found this process
// frozen. It returns the longest hold the checks saw.
func checkBursts(burst, gap, spacing time.Duration, frozen bool) time.Duration {
	l := newLive(30*time.Second, rundoc.SteadyLimit(0), 1)
	st := newSteadiness()
	var longest time.Duration
	next := spacing
	for start := time.Duration(0); start < 60*time.Second; start += burst + gap {
		for at := start; at < start+burst; at += 20 * time.Millisecond {
			for next <= at {
				longest = max(longest, readiness(l, st, next))
				next += spacing
			}
			l.add(0, at, 1)
		}
		if frozen {
			l.markFrozen(start+burst, start+burst+gap)
		}
	}
	return longest
}

// readiness is the streams' and generation's part of openWhenSteady at now.
func readiness(l *live, st *steadiness, now time.Duration) time.Duration {
	l.scanRamp(&st.scan, now)
	return st.hold(l.started() == 1 && st.scan.generating(), now)
}

// TestSilencesBreakTheHoldHoweverSparseTheChecks: a server that answers in
// bursts of 160 ms between two-second silences (TestRampTimesOut's) is
// never steady, whether the checks come every second or, on a starved
// host, every 2.5 s or 4.3 s: with checks that far apart every check saw
// new tokens, and the old rule ("tokens since the last check") held. A
// server that generates without a break is steady under the same sparse
// checks, and so is one whose silences were this process's own freezes
// (the lag meter's, starve.go): the in-process simulator stopped with it.
func TestSilencesBreakTheHoldHoweverSparseTheChecks(t *testing.T) {
	for _, spacing := range []time.Duration{time.Second, 2500 * time.Millisecond, 4300 * time.Millisecond} {
		if held := checkBursts(160*time.Millisecond, 2*time.Second, spacing, false); held >= rundoc.SteadyHold {
			t.Errorf("bursts between 2 s silences, checks %v apart: held %v, want under %v", spacing, held, rundoc.SteadyHold)
		}
		// 900 ms pauses are not silences: SteadyCheck is 1 s.
		if held := checkBursts(2*time.Second, 900*time.Millisecond, spacing, false); held < rundoc.SteadyHold {
			t.Errorf("900 ms pauses, checks %v apart: held %v, want %v or more", spacing, held, rundoc.SteadyHold)
		}
		if held := checkBursts(time.Minute, 0, spacing, false); held < rundoc.SteadyHold {
			t.Errorf("an unbroken stream, checks %v apart: held %v, want %v or more", spacing, held, rundoc.SteadyHold)
		}
		if held := checkBursts(160*time.Millisecond, 2*time.Second, spacing, true); held < rundoc.SteadyHold {
			t.Errorf("bursts between 2 s freezes of this process, checks %v apart: held %v, want %v or more", spacing, held, rundoc.SteadyHold)
		}
	}
}
