package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Steady state (METHOD.md: Decode cells, step 3). A decode window opens
// where the seed tool opens it, not at the first send: the N streams are
// sent, and the cell is checked every rundoc.SteadyCheck of the card's
// time. The window opens once all of these have held for rundoc.SteadyHold
// without a break, and no earlier than rundoc.SteadyEarliest after the
// first send:
//   - every stream has received at least one token;
//   - the server is generating: no silence of rundoc.SteadyCheck or more
//     (ramp.go) has begun, nor broken the hold. This is the seed tool's
//     "tokens arrived since the last check" for checks a second apart,
//     judged from the tokens' own times: on a busy host the checks can
//     fall seconds apart, and a server that generates in bursts between
//     long silences would then look steady;
//   - with metrics, the server's waiting gauge is 0 and its running gauge
//     is at least N.
//
// A stream whose request just ended and was sent again (short max_output)
// is between two requests for a moment, so the server may count it as
// waiting or not at all: such restarting streams are allowed for in both
// gauges. With the seed tool's max_output of 8192 no stream restarts
// within a window, and the conditions are the seed tool's exactly.
//
// Without metrics, the first two stand for all. The ramp before the
// opening is where streams wait for their first tokens; counted in the
// window, it makes the figure depend on the window's length (a 15 s window
// at 16K × 16 read 56% below the seed tool's). If steady state has not
// come by rundoc.SteadyLimit, the window opens anyway and the cell records
// warmup_timed_out with what did not hold.

// steadiness is the readiness check's memory between checks.
type steadiness struct {
	since time.Duration // card offset where the conditions began to hold, −1: not holding
	scan  rampScan      // the ramp's token marks read so far
}

// newSteadiness is the memory of a cell whose checks have not begun.
func newSteadiness() *steadiness {
	return &steadiness{since: -1, scan: newRampScan()}
}

// hold takes one check's verdict at card offset now and returns how long
// the conditions have held without a break: from the first check that
// found them, or from the end of a silence the ramp marks show after it.
func (st *steadiness) hold(ok bool, now time.Duration) time.Duration {
	switch {
	case !ok:
		st.since = -1
		return 0
	case st.since < 0:
		st.since = now
	case st.scan.quietEnd > st.since:
		st.since = st.scan.quietEnd // a silence since the hold began: it holds from the silence's end
	}
	return now - st.since
}

// openWhenSteady checks readiness once, at the current instant, and opens
// the window when the cell has been steady long enough or its ramp limit
// has passed. It reports whether the window opened.
func (w *window) openWhenSteady(ctx context.Context, st *steadiness) bool {
	now := w.frontier(w.clk.at(time.Now()))
	n := len(w.prompts)
	producing := w.live.started()
	w.live.scanRamp(&st.scan, min(now, w.clk.at(w.reported())))
	generating := st.scan.generating()

	ok := producing == n && generating
	limit := rundoc.SteadyLimit(w.cell.Context)
	var sample *rundoc.ServerSample
	var spec *specReading
	// A server whose queue gauges are not reported (absent, or NaN/Inf)
	// is judged by the streams' own conditions, as one without /metrics:
	// a running gauge read as 0 would hold every cell to its ramp limit.
	if w.run.Server.HasMetrics && w.run.Server.Reports(rundoc.NotReportedQueue) && (ok || now >= limit) {
		// The gauges only matter when the streams' own conditions hold or
		// the ramp's limit opens the window: a silent server (stall.go) is
		// not kept waiting on /metrics at every check.
		sample, _, spec = w.scrape(ctx)
	}
	var why string
	if sample != nil {
		re := float64(w.live.restarting())
		ok = ok && sample.Waiting <= re && sample.Running >= float64(n)-re
		why = fmt.Sprintf("streams_with_tokens=%d/%d, running_reqs=%g/%d, queue_reqs=%g", producing, n, sample.Running, n, sample.Waiting)
	} else {
		why = fmt.Sprintf("streams_with_tokens=%d/%d (no server metrics)", producing, n)
	}
	if !generating {
		why += ", not generating"
	}
	steady := ok && st.hold(ok, now) >= rundoc.SteadyHold && now >= rundoc.SteadyEarliest
	if !steady && now < limit {
		return false
	}
	w.cell.RampS = round(now.Seconds(), 3)
	w.cell.Readiness = why
	w.cell.WarmupTimedOut = !steady
	w.rampQueued = !steady && sample != nil && sample.Waiting > 0
	w.cell.WindowStart = w.clk.start.Add(w.clk.real(now)).UTC()
	if sample != nil {
		sample.T = 0 // the baseline: counters are measured from it
		w.baseline = sample
		w.spec.first = spec
	}
	w.live.setOpen(now)
	close(w.opened)
	return true
}

// rampMessage says what the cell does before its window opens.
func (w *window) rampMessage() string {
	return fmt.Sprintf("sending %d stream(s); the %s window opens at steady state (every stream producing, nothing waiting, held %s; at most %s)",
		len(w.prompts), fmtSeconds(w.d.Seconds()), fmtSeconds(rundoc.SteadyHold.Seconds()), fmtSeconds(rundoc.SteadyLimit(w.cell.Context).Seconds()))
}
