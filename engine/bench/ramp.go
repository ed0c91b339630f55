package bench

import (
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// The ramp's marks: what the readiness check (steady.go) reads to tell
// whether the server generated without a silence throughout its hold,
// whatever the spacing of the checks themselves on a busy host. Before the
// window opens, each rampSlot of card time from the first send is marked
// when any stream got a token stamped in it, or, failing that, when the lag
// meter (starve.go) found this process frozen in it. A silence is a run of
// unmarked slots: a second in which the server sent nothing while RigBench
// was there to read it. A machine's freeze stops the in-process simulator
// and the client alike, and is not the server's silence, as for the stall
// check.

// rampSlot is the resolution of the ramp's marks: a silence is seen to
// within 100 ms of card time.
const rampSlot = 100 * time.Millisecond

// The marks of a ramp slot.
const (
	slotEmpty int32 = iota
	slotToken
	slotFrozen
)

// markToken marks the slot of card offset at as having a token.
func (l *live) markToken(at time.Duration) {
	if k := int(at / rampSlot); k >= 0 && k < len(l.ramp) {
		l.ramp[k].Store(slotToken)
	}
}

// markFrozen marks the slots from card offset a to b that have no token
// as frozen: this process did not run then.
func (l *live) markFrozen(a, b time.Duration) {
	for k := max(int(a/rampSlot), 0); k <= int(b/rampSlot) && k < len(l.ramp); k++ {
		l.ramp[k].CompareAndSwap(slotEmpty, slotFrozen)
	}
}

// rampScan is the readiness check's reading of the ramp marks so far.
type rampScan struct {
	next     int           // the first slot not read yet
	lastTok  int           // the latest slot read that had a token, −1: none
	empty    int           // empty slots read since lastTok (frozen ones not counted)
	quietEnd time.Duration // where the latest silence ended, −1: none
}

// newRampScan is the reading of a ramp none of whose slots were read.
func newRampScan() rampScan { return rampScan{lastTok: -1, quietEnd: -1} }

// silenceSlots is how many empty slots make a silence: rundoc.SteadyCheck.
// A silence is then seen from 1 s of card time and always from 1.2 s.
const silenceSlots = int(rundoc.SteadyCheck / rampSlot)

// scanRamp reads the marks of the whole slots before upTo that it has not
// read yet; the slot upTo lies in is left for the next scan, as a stream
// may still stamp a token in it. upTo must be no later than the lag
// meter's last wake-up, so that a freeze not yet reported is not read as
// a silence.
func (l *live) scanRamp(sc *rampScan, upTo time.Duration) {
	end := min(int(upTo/rampSlot), len(l.ramp))
	for k := sc.next; k < end; k++ {
		switch l.ramp[k].Load() {
		case slotEmpty:
			sc.empty++
		case slotToken:
			if sc.lastTok >= 0 && sc.empty >= silenceSlots {
				sc.quietEnd = time.Duration(k) * rampSlot
			}
			sc.lastTok, sc.empty = k, 0
		}
	}
	sc.next = max(sc.next, end)
}

// generating reports whether the server is generating as of the slots
// read: it has sent a token, and no silence has begun since.
func (sc *rampScan) generating() bool { return sc.lastTok >= 0 && sc.empty < silenceSlots }
