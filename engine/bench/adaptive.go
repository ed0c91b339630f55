package bench

import (
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// live is what an adaptive window's controller reads while the streams
// run: tokens per bin and each stream's first token, written by the
// streams with atomic adds so that reading costs them nothing.
type live struct {
	bins []atomic.Int64
	// first is each stream's first token as a card offset + 1 (0: none yet).
	first []atomic.Int64
}

func newLive(d time.Duration, streams int) *live {
	return &live{bins: make([]atomic.Int64, d/binWidth+1), first: make([]atomic.Int64, streams)}
}

// add counts a chunk of n tokens that stream received at card offset at.
func (l *live) add(stream int, at time.Duration, n int) {
	k := int(at / binWidth)
	if n == 0 || at < 0 || k >= len(l.bins) {
		return
	}
	l.bins[k].Add(int64(n))
	l.first[stream].CompareAndSwap(0, int64(at)+1)
}

// snapshot returns the first k bins and the settle point (the last
// stream's first token), settled false while a stream has none.
func (l *live) snapshot(k int) (bins []float64, settle time.Duration, settled bool) {
	bins = make([]float64, min(k, len(l.bins)))
	for i := range bins {
		bins[i] = float64(l.bins[i].Load())
	}
	for i := range l.first {
		f := l.first[i].Load()
		if f == 0 {
			return bins, 0, false
		}
		settle = max(settle, time.Duration(f-1))
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
// now, and where: at the last whole bin. It may once (METHOD.md: Adaptive
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
