package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// A server that stalls (METHOD.md: Status, "Failed"; A server that dies).
// A process stopped by `kill -STOP` or `docker pause`, a hung GPU or a
// deadlocked collective keeps every connection open and sends nothing: no
// request fails, so the gone-server watch (gone.go) never fires, and a
// window that waited out its ramp limit and its length would read "no
// output", which is not a capacity verdict. So each decode cell watches its
// streams' tokens: when none has come for the stall limit, and the server
// shows no sign of a full KV cache, the cell fails with the moment its
// tokens stopped and the run ends at once, as for a server that died, so
// both front ends say what was kept and how to resume.

// DefaultStallTimeout is how long, in the served card's time, every stream
// of a decode cell may go without a token before the cell fails as stalled,
// while each in-flight request has had its first token (requests still
// waiting for theirs get their prefill's time on top, stallLimit). One
// decode step gives every running sequence a token; the slowest steps
// RigBench has measured (128K contexts on an RTX 3060, a 4B model on a
// laptop CPU) take under half a second, so 5 s is ten such steps with no
// token for any stream: a trickle far below any plausible rate, or none.
const DefaultStallTimeout = 5 * time.Second

// minStallReal is the least real time a stall is waited for, whatever a
// simulator's speed: a client starved of CPU on a loaded machine reads its
// streams late and in bursts (seen: half a second), and at 100× the card's
// 5 s are 50 ms of real time.
const minStallReal = 2 * time.Second

// KVNearFull is the share of its KV cache a server's usage gauge must reach
// to count as evidence that the cache, not a fault, held its requests back.
const KVNearFull = 0.95

// StalledError is the evidence of a server that stopped producing tokens
// while its requests fit: the run ends with a *ServerGoneError carrying it.
type StalledError struct {
	// Silent is how long, in the served card's time, no token came.
	Silent time.Duration
	// Fit is what the KV model says of the cell's requests ("2 × (0 +
	// 64) tokens fit the KV capacity of 431,024 tokens"), "" when the
	// server's capacity is not known.
	Fit string
	// Unanswered is true when the server did not answer /metrics either
	// (a stopped or paused process), false when it did or has none.
	Unanswered bool
}

func (e *StalledError) Error() string {
	msg := "no token came for " + fmtSeconds(e.Silent.Seconds())
	if e.Fit != "" {
		msg += " although " + e.Fit
	}
	msg += ", and the server showed no sign of a full KV cache"
	if e.Unanswered {
		msg += "; it did not answer /metrics either (a stopped or paused process, or a hung GPU)"
	}
	return msg
}

// stallLimit is how long, in card time, the cell's streams may go without a
// token now: the stall timeout, or, while requests wait for their first
// token (the ramp, or streams re-sent in the window), the time the
// server's prompt rate predicts for prefilling them all, stuckFactor times
// over (firstTokenBudget's margin), if that is longer.
func (w *window) stallLimit() time.Duration {
	limit := w.runner.StallTimeout
	waiting := 0
	for i := range w.live.waiting {
		if w.live.waiting[i].Load() == 1 {
			waiting++
		}
	}
	if waiting > 0 {
		tokens := waiting * max(w.cell.Context, 1)
		prefill := time.Duration(stuckFactor * float64(tokens) / PrefillRate(w.run.Cells, w.cell.Context) * float64(time.Second))
		limit = max(limit, prefill)
	}
	return limit
}

// progressed records, on the runner's clock, that the cell's streams moved
// on: a token arrived or a request was sent.
func (w *window) progressed() {
	w.progressStarved.Store(int64(w.starved()))
	w.progress.Store(w.runner.Now().UnixNano())
}

// silence is how long the streams have gone without a token or a send, on
// the runner's clock, less the time this process was kept from running
// since (starve.go): a machine's freeze is not the server's silence.
func (w *window) silence() time.Duration {
	wall := w.runner.Now().Sub(time.Unix(0, w.progress.Load()))
	frozen := w.starved() - time.Duration(w.progressStarved.Load())
	return max(wall-max(frozen, 0), 0)
}

// stallCheckEvery is how often the window asks whether its streams stalled.
func (w *window) stallCheckEvery() time.Duration {
	return max(w.clk.real(w.runner.StallTimeout), minStallReal) / 8
}

// silent reports whether the streams have gone without a token or a send
// for a stall check's period: far longer than a decode step, so a pause,
// not the gap between two tokens.
func (w *window) silent() bool {
	return w.silence() >= w.stallCheckEvery()
}

// The stall check's states (window.watch): watching, the window's length
// passed while the streams were silent (closeLive), nothing more to watch.
const (
	watchOn int32 = iota
	watchLingering
	watchDecided
)

// closeLive closes the window at its length (stop) unless its streams are
// silent then: a server that froze shortly before the end would otherwise
// leave a cell with a low figure and the next cell's warm-up waiting for
// it. The window then lingers until the next token or the stall limit
// (follow's stall check); the figures are the window's still, since what
// arrives after its end is not counted.
func (w *window) closeLive(stop func()) {
	if !w.silent() || !w.watch.CompareAndSwap(watchOn, watchLingering) {
		stop()
	}
}

// checkStall asks whether the cell's streams have gone without a token for
// longer than stallLimit (in real time, at least minStallReal), and if so
// what the server says of it. A server whose KV cache shows full (its
// /metrics, sampleCapacity) sets w.capacity and the window goes on, for the
// cell's status to say Over capacity; one that refuses or closes
// connections is gone (w.gone holds the evidence, gone.go); any other is
// stalled (w.stalled). stop is true when the streams should end now,
// decided once there is nothing more to watch.
func (w *window) checkStall(ctx context.Context) (stop, decided bool) {
	r := w.runner
	limit := w.stallLimit()
	silent := w.silence()
	if silent < max(w.clk.real(limit), minStallReal) || ctx.Err() != nil {
		return false, false
	}
	// The probe (a fresh connection: refused or closed unanswered is a
	// gone server) runs beside the scrape. Both evidences of a gone server
	// come at once, so the probe is waited for no longer than the scrape:
	// a stopped server, which answers neither, costs stallScrapeTimeout.
	goneC := make(chan error, 1)
	go func() { goneC <- w.gone.check(ctx, r) }()
	probeWait := time.NewTimer(stallScrapeTimeout)
	defer probeWait.Stop()
	unanswered := false
	if w.run.Server.HasMetrics {
		sctx, cancel := context.WithTimeout(ctx, stallScrapeTimeout)
		m, err := r.Client.Metrics(sctx)
		cancel()
		if err == nil {
			s := rundoc.ServerSample{Running: m.Running, Waiting: m.Waiting, KVUsage: rundoc.Reported(m.KVUsage, m.HasKVUsage),
				Preemptions: rundoc.Reported(m.Preemptions, m.HasPreemptions)}
			if ev := sampleCapacity(s, w.baseline, len(w.prompts)); ev != "" {
				w.capacity = ev
			}
		}
		unanswered = err != nil && !connectionFailure(err)
	}
	select {
	case ev := <-goneC:
		if ev != nil {
			return true, true // gone, not stalled: measure words it (markGone)
		}
	case <-probeWait.C:
	}
	if w.capacity != "" || ctx.Err() != nil {
		return false, true
	}
	w.stalled = &StalledError{Silent: time.Duration(float64(silent) * w.speed), Fit: w.fits(), Unanswered: unanswered}
	return true, true
}

// stallScrapeTimeout bounds the /metrics request that asks a silent server
// about its KV cache, and the wait for the probe beside it: a live server
// answers both in milliseconds, a gone one refuses or closes at once, and
// a stopped one never answers, so the run is not held longer than this.
const stallScrapeTimeout = 2 * time.Second

// fits words the KV model's verdict on the cell's requests, "" when the
// server's capacity is not known.
func (w *window) fits() string {
	l := ServerLimits(w.run.Server)
	if l.KVCapacity <= 0 {
		return ""
	}
	n, m := l.Running(w.cell.Concurrency), w.run.Plan.MaxOutput
	return fmt.Sprintf("%d × (%d + %d) tokens fit the KV capacity of %s", n, w.cell.Context, m, rundoc.TokensText(l.KVCapacity))
}

// sampleCapacity is the evidence in one /metrics sample that the server's
// KV cache held its requests back ("" when there is none): its usage gauge
// near full, preemptions since the baseline (nil: none taken), or requests
// waiting with none running.
func sampleCapacity(s rundoc.ServerSample, baseline *rundoc.ServerSample, n int) string {
	var parts []string
	if s.KVUsage != nil && *s.KVUsage >= KVNearFull {
		parts = append(parts, fmt.Sprintf("its KV cache was %.0f%% full", 100**s.KVUsage))
	}
	if baseline != nil && s.Preemptions != nil && baseline.Preemptions != nil && *s.Preemptions > *baseline.Preemptions {
		parts = append(parts, fmt.Sprintf("it preempted %.0f requests", *s.Preemptions-*baseline.Preemptions))
	}
	if s.Waiting > 0 && s.Running == 0 {
		parts = append(parts, fmt.Sprintf("it held %.0f of %d requests waiting with none running", s.Waiting, n))
	}
	return strings.Join(parts, ", ")
}

// windowCapacity is the evidence in a window's samples that the server's
// KV cache held its requests back, "" when there is none (sampleCapacity,
// over the window: the usage gauge's maximum, the preemptions counted).
func windowCapacity(c *rundoc.Cell) string {
	st := c.ServerStats
	if st == nil {
		return ""
	}
	var parts []string
	if st.KVUsageMax >= KVNearFull {
		parts = append(parts, fmt.Sprintf("its KV cache was %.0f%% full", 100*st.KVUsageMax))
	}
	if st.Preemptions > 0 {
		parts = append(parts, fmt.Sprintf("it preempted %.0f requests", st.Preemptions))
	}
	for _, s := range inWindow(c.ServerSamples) {
		if s.Waiting > 0 && s.Running == 0 {
			parts = append(parts, fmt.Sprintf("it held %.0f of %d requests waiting with none running", s.Waiting, c.Concurrency))
			break
		}
	}
	return strings.Join(parts, ", ")
}

// noOutput is the status of a window that received no token: Over
// capacity only with the evidence (the gauges when the streams went silent,
// else the window's samples), Failed otherwise, since a server that fits
// its requests and sends nothing is faulty, not full (a refusal, llama-
// server's exceed_context_size_error, is an error classify reads first).
func noOutput(c *rundoc.Cell, atSilence string) (rundoc.Status, string) {
	ev := atSilence
	if ev == "" {
		ev = windowCapacity(c)
	}
	if ev != "" {
		return rundoc.StatusOverCapacity, "the server's KV cache held the requests back (" + ev + "): no token came in the window"
	}
	return rundoc.StatusFailed, "the server produced no token in the window, and showed no sign of a full KV cache"
}

// markStalled fails a decode cell whose streams stalled, with the moment
// its last token came, and marks the server gone so that the run ends after
// it (goneError). reqs' offsets count from shifted, a card offset from the
// first send: the window's opening, or the moment the streams ended when it
// never opened (measure).
func (w *window) markStalled(reqs []request, shifted time.Duration) {
	_, isOpen := w.live.opening()
	last, any := time.Duration(0), false
	for _, rq := range reqs {
		for _, ch := range rq.chunks {
			if ch.tokens > 0 && (!any || ch.at > last) {
				last, any = ch.at, true
			}
		}
	}
	var moment string
	switch {
	case !any:
		moment = "before the cell's first token"
	case isOpen:
		moment = windowMoment(last)
	default:
		moment = fmtSeconds((last + shifted).Seconds()) + " after the cell's first send, during the ramp"
	}
	c := w.cell
	c.Status = rundoc.StatusFailed
	c.Reason = fmt.Sprintf("the server stopped producing tokens %s: %s", moment, w.stalled.Error())
	w.runner.gone = &goneMark{evidence: w.stalled, where: moment}
}

// stalled reports whether err is a stalled server's evidence.
func stalled(err error) bool {
	var s *StalledError
	return errors.As(err, &s)
}

// legacyNoOutput is the reason runs before issue 35 gave any window that
// received no token, as Over capacity, whatever the cause: a stopped
// server read so too. It is no capacity evidence, so a resume measures
// such cells again (keep).
const legacyNoOutput = "the server produced no output in the window"

// CapacityVerdict reports whether cell c of a run's cells is an Over
// capacity verdict with evidence behind it (predicted, the server's
// refusal or gauges, or not run after such a cell), not an older run's
// "produced no output in the window" or a cell not run after one: what the
// diagnosis may blame on the KV cache.
func CapacityVerdict(c rundoc.Cell, cells []rundoc.Cell) bool {
	return c.Status == rundoc.StatusOverCapacity && keep(c, cells)
}

// keep reports whether a resumed run keeps cell c of an earlier attempt's
// cells as measured: KeepOnResume of its status, but not an Over capacity
// verdict that no evidence backs, an older run's "produced no output in the
// window", nor a cell "not run" for a smaller N's verdict that is not kept.
func keep(c rundoc.Cell, cells []rundoc.Cell) bool {
	if !KeepOnResume(c.Status) {
		return false
	}
	if c.Status != rundoc.StatusOverCapacity {
		return true
	}
	if c.Reason == legacyNoOutput || strings.HasPrefix(c.Reason, legacyNoOutput+"; ") {
		return false
	}
	if !strings.HasPrefix(c.Reason, notRunReason) {
		return true
	}
	for _, d := range cells {
		if d.Phase == c.Phase && d.Context == c.Context && d.Concurrency < c.Concurrency &&
			d.Status == rundoc.StatusOverCapacity && !strings.HasPrefix(d.Reason, notRunReason) && keep(d, cells) {
			return true
		}
	}
	return false
}
