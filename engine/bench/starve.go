package bench

import (
	"sync/atomic"
	"time"
)

// A loaded machine can keep this process from running for seconds: on two
// cores shared with other work, a client and an in-process simulator were
// once both frozen for 2.5 s. Measured in wall time, that freeze reads as
// a server that sent no token, and the stall check (stall.go) would fail a
// healthy cell. The lag meter measures the freeze instead: a goroutine
// asks to wake every lagTick and adds how late each wake-up came, past
// lagSlack, to a total. A process that is idle, waiting on a server that
// really stopped, wakes on time and adds nothing; one that wanted to run
// and could not adds the time it lost. The stall check subtracts what was
// lost during a silence from the silence.

// lagTick is the lag meter's wake-up period: short enough that a freeze
// is seen to within a tick, long enough to cost nothing (50 wake-ups a
// second).
const lagTick = 20 * time.Millisecond

// lagSlack is the lateness of a wake-up that is the scheduler's ordinary
// jitter, not a freeze: with room for a system timer of 15.6 ms
// granularity (older Windows), which fires a 20 ms ticker every 31.2 ms.
const lagSlack = 10 * time.Millisecond

// lagMeter totals the time this process was kept from running while it
// ran (startLagMeter).
type lagMeter struct {
	lost atomic.Int64 // nanoseconds
	// woke is the last wake-up (UnixNano): every freeze before it has
	// been reported.
	woke atomic.Int64
	// frozen, when set, is told of each freeze, from its start to the
	// wake-up that ended it.
	frozen func(from, to time.Time)
	done   chan struct{}
}

// startLagMeter starts measuring, telling frozen (when not nil) of each
// freeze; stop ends it.
func startLagMeter(frozen func(from, to time.Time)) *lagMeter {
	m := &lagMeter{frozen: frozen, done: make(chan struct{})}
	m.woke.Store(time.Now().UnixNano())
	go m.run()
	return m
}

func (m *lagMeter) run() {
	t := time.NewTicker(lagTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-m.done:
			return
		case <-t.C:
			// The wake-up is timed when this goroutine runs, not when
			// the timer fired: a process whose goroutines wait for a
			// thread is as late as one the system did not run. A ticker
			// drops the ticks a late reader missed, so the whole delay
			// shows in one interval.
			now := time.Now()
			if late := now.Sub(last) - lagTick - lagSlack; late > 0 {
				m.lost.Add(int64(late))
				if m.frozen != nil {
					m.frozen(now.Add(-late), now)
				}
			}
			m.woke.Store(now.UnixNano())
			last = now
		}
	}
}

// starved is the time lost so far.
func (m *lagMeter) starved() time.Duration { return time.Duration(m.lost.Load()) }

// reported is the time up to which every freeze has been reported: the
// last wake-up. A freeze in progress is reported at the wake-up that ends
// it, so what lies after this is not yet known to be frozen or not.
func (m *lagMeter) reported() time.Time { return time.Unix(0, m.woke.Load()) }

func (m *lagMeter) stop() { close(m.done) }
