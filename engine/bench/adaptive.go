package bench

import (
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// live is what the readiness check and an adaptive window's controller
// read while the streams run: each stream's first token and, once the
// window has opened, tokens per bin from its opening, written by the
// streams with atomic adds so that reading costs them nothing.
type live struct {
	bins []atomic.Int64
	// first is each stream's first token as a card offset from the first
	// send + 1 (0: none yet).
	first []atomic.Int64
	// open is the window's opening as a card offset from the first send
	// + 1 (0: not open yet).
	open atomic.Int64
	// waiting is 1 for each stream whose current request has no token yet.
	waiting []atomic.Int32
	// inFlight counts the requests the client has open now: what a server
	// sample is paired with (deriveServer), so a sample that catches a
	// stream between two requests sees the client's dip too.
	inFlight atomic.Int32
	// last is each stream's latest chunk as a card offset from the first
	// send + 1 (0: none yet), and busy is 1 while the stream has a request
	// in flight: what the close of a window waits on (window.drain).
	last []atomic.Int64
	busy []atomic.Int32
	// ramp marks each rampSlot of the ramp (ramp.go).
	ramp []atomic.Int32
}

// newLive sizes the bins for a window of d and the ramp marks for a ramp
// of at most rampLimit (rundoc.SteadyLimit of the cell's context).
func newLive(d, rampLimit time.Duration, streams int) *live {
	return &live{bins: make([]atomic.Int64, d/binWidth+1), first: make([]atomic.Int64, streams),
		waiting: make([]atomic.Int32, streams), last: make([]atomic.Int64, streams), busy: make([]atomic.Int32, streams),
		ramp: make([]atomic.Int32, rampLimit/rampSlot+1)}
}

// frontier is the oldest latest chunk (card offset) among the streams in
// flight that have had tokens, or now when it is older or there is none.
func (l *live) frontier(now time.Duration) time.Duration {
	f := now
	for i := range l.last {
		if l.busy[i].Load() == 1 && l.waiting[i].Load() == 0 {
			if last := l.last[i].Load(); last > 0 {
				f = min(f, time.Duration(last-1))
			}
		}
	}
	return f
}

// readPast reports whether every stream with a request in flight that has
// had tokens has read a chunk at card offset target or later.
func (l *live) readPast(target time.Duration) bool {
	for i := range l.last {
		if l.busy[i].Load() == 1 && l.waiting[i].Load() == 0 && time.Duration(l.last[i].Load()-1) < target {
			return false
		}
	}
	return true
}

// sent records that stream sent a new request, which has no token yet.
func (l *live) sent(stream int) { l.waiting[stream].Store(1) }

// restarting counts the streams that have had tokens and whose current
// request has none yet: re-sent after a request ended, so the server may
// not count them as running for a moment.
func (l *live) restarting() int {
	n := 0
	for i := range l.waiting {
		if l.waiting[i].Load() == 1 && l.first[i].Load() > 0 {
			n++
		}
	}
	return n
}

// add counts a chunk of n tokens that stream received at card offset at
// (from the first send).
func (l *live) add(stream int, at time.Duration, n int) {
	if n == 0 || at < 0 {
		return
	}
	l.first[stream].CompareAndSwap(0, int64(at)+1)
	l.last[stream].Store(int64(at) + 1)
	l.waiting[stream].Store(0)
	open, ok := l.opening()
	if !ok || at < open {
		l.markToken(at)
		return
	}
	if k := int((at - open) / binWidth); k < len(l.bins) {
		l.bins[k].Add(int64(n))
	}
}

// setOpen records the window's opening at card offset at, once.
func (l *live) setOpen(at time.Duration) { l.open.CompareAndSwap(0, int64(max(at, 0))+1) }

// opening returns the window's opening (card offset from the first send)
// and whether it has opened.
func (l *live) opening() (time.Duration, bool) {
	o := l.open.Load()
	return time.Duration(o - 1), o > 0
}

// started counts the streams that have received a token.
func (l *live) started() int {
	n := 0
	for i := range l.first {
		if l.first[i].Load() > 0 {
			n++
		}
	}
	return n
}

// windowTokens is the tokens counted since the window opened.
func (l *live) windowTokens() float64 {
	var n int64
	for i := range l.bins {
		n += l.bins[i].Load()
	}
	return float64(n)
}

// snapshot returns the first k bins from the window's opening and the
// settle point (the last stream's first token, from the opening; 0 when
// every stream had one before it), settled false while a stream has none.
func (l *live) snapshot(k int) (bins []float64, settle time.Duration, settled bool) {
	bins = make([]float64, min(k, len(l.bins)))
	for i := range bins {
		bins[i] = float64(l.bins[i].Load())
	}
	open, _ := l.opening()
	for i := range l.first {
		f := l.first[i].Load()
		if f == 0 {
			return bins, 0, false
		}
		settle = max(settle, time.Duration(f-1)-open)
	}
	return bins, settle, true
}

// checkEvery is how often, in the card's time, an adaptive window asks
// whether it may stop; minCheck bounds it in real time for fast simulators.
const (
	checkEvery = 250 * time.Millisecond
	minCheck   = 5 * time.Millisecond
)

// stopAt decides whether an adaptive window may close now, at card offset
// now from its opening, and where: at the last whole bin. It may once (METHOD.md: Adaptive
// windows)
//   - the window has lasted rundoc.MinAutoWindow, and every stream has its
//     first token with at least half that minimum of steady rate after it;
//   - where streams restart within the reference window (a stream emits M
//     tokens in M·N / rate seconds), the steady part holds one restart
//     period, so its mean covers every phase of the cycle;
//   - total tok/s is known within the plan's precision.
func (w *window) stopAt(now time.Duration) (time.Duration, bool) {
	k := int(now / binWidth)
	end := time.Duration(k) * binWidth
	if end < rundoc.MinAutoWindow || end >= w.d {
		return 0, false
	}
	bins, settle, settled := w.live.snapshot(k)
	if !settled || end-settle < rundoc.MinAutoWindow/2 {
		return 0, false
	}
	est := estimateRate(bins, settle, true, w.d)
	if est.rate <= 0 {
		return 0, false
	}
	period := time.Duration(float64(w.maxOutput*len(w.prompts)) / est.rate * float64(time.Second))
	if settle+period < w.d && end-settle < period {
		return 0, false
	}
	return end, est.relative() <= w.run.Plan.Precision
}
