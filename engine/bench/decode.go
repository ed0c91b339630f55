package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// decode runs one decode cell (METHOD.md: Decode cells): plan check,
// warm-up, a fixed window of N closed-loop streams, figures and status.
func (r *Runner) decode(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell, index, total int) {
	m := run.Plan.MaxOutput
	docs, prompts, note, ok := r.openCell(ctx, run, cell)
	defer addNote(cell, note)
	if !ok {
		return
	}
	k := slotCopies(ServerLimits(run.Server), docs)
	started := func(w *stuckWait) {
		msg := warmUpMessage(docs, cell.Context, w.givesUp())
		if k > 1 {
			msg = fmt.Sprintf("warming up the shared prompt of %s tokens in %d slots, which cache apart (%s)",
				rundoc.ContextLabel(cell.Context), k, w.givesUp())
		}
		r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: run, Cell: cell, Index: index, Total: total, Message: msg})
	}
	var (
		promptTokens int
		err          error
	)
	if k > 1 {
		err = r.warmSlots(ctx, run, prompts[0], k, cell.Context, m, started)
		if err == nil {
			// The copies were cancelled: the next requests must not land
			// while the server still winds them down. They ended before
			// the usage, which llama-server sends last, so one more request
			// of the document, served from a slot's cache, says its length.
			more, note2 := r.waitIdle(ctx, run)
			cell.IdleWaitS = round(cell.IdleWaitS+more, 3)
			defer addNote(cell, note2)
			promptTokens, err = r.warmUp(ctx, run, prompts[:1], cell.Context, func(*stuckWait) {})
		}
	} else {
		promptTokens, err = r.warmUp(ctx, run, distinct(prompts), cell.Context, started)
	}
	if err != nil {
		r.fail(cell, err)
		if cell.Status == rundoc.StatusFailed {
			cell.Reason = "warm-up failed: " + cell.Reason
		}
		return
	}
	cell.PromptTokens = promptTokens
	if promptTokens > 0 && !run.Server.HasTokenize {
		r.prompts.Correct(cell.Context, promptTokens)
	}
	w := &window{
		runner: r, run: run, cell: cell, prompts: prompts,
		d: run.Plan.Duration(), speed: run.Plan.Speed(), maxOutput: m,
		adaptive: run.Plan.Adaptive(), opened: make(chan struct{}),
	}
	w.live = newLive(w.d, rundoc.SteadyLimit(cell.Context), len(prompts))
	w.measure(ctx, index, total)
}

// openCell starts a decode or burst cell up to its warm-up: the plan check
// (DecodeStatus), the documents its N streams send and their prompts, by
// the plan's prompt policy (under shared the context's one document N
// times, else one per stream, reused from cell to cell in an adaptive plan,
// reuse.go), and the wait for an idle server. ok is false when the cell
// ends there, its status and reason set; note is what the wait has to say,
// which the caller adds to the cell's reason at its end.
func (r *Runner) openCell(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell) (docs []cellDoc, prompts []string, note string, ok bool) {
	m := run.Plan.MaxOutput
	if st := DecodeStatus(cell.Context, cell.Concurrency, m, ServerLimits(run.Server)); st != "" {
		cell.Status, cell.Reason = st, predictReason(st, cell.Context, cell.Concurrency, m, run.Server)
		return nil, nil, "", false
	}
	switch {
	case run.Plan.PromptPolicy() == rundoc.PromptsShared:
		docs = r.sharedDocs(cell.Context, cell.Concurrency)
	case r.docs != nil:
		docs = r.docs.forCell(cell.Context, cell.Concurrency, r.newDoc)
	default:
		for range cell.Concurrency {
			docs = append(docs, cellDoc{doc: r.newDoc()})
		}
	}
	prompts = make([]string, len(docs))
	for i, d := range docs {
		p, err := r.prompts.Prompt(ctx, cell.Context, d.doc)
		if err != nil {
			r.fail(cell, err)
			return nil, nil, "", false
		}
		prompts[i] = p
	}
	cell.IdleWaitS, note = r.waitIdle(ctx, run)
	if r.gone != nil {
		cell.Status, cell.Reason = rundoc.StatusFailed, goneWords(r.gone.evidence, r.gone.where, false)
		return nil, nil, note, false
	}
	return docs, prompts, note, true
}

// distinct returns the prompts without repeats, in order: under the shared
// policy the N streams of a cell send one prompt, which the warm-up sends
// once.
func distinct(prompts []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range prompts {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// warmUpMessage is a warm-up's progress line. Prompts sent before
// (adaptive runs, reuse.go) are said, or a warm-up of 16 prompts that takes
// a fraction of the time 16 fresh ones would reads as a mistake.
func warmUpMessage(docs []cellDoc, context int, givesUp string) string {
	var whole, grown int
	for _, d := range docs {
		switch {
		case context > 0 && d.sent >= context:
			whole++
		case d.sent > 0:
			grown++
		}
	}
	if shared(docs) {
		msg := fmt.Sprintf("warming up the shared prompt of %s tokens", rundoc.ContextLabel(context))
		if context > 0 && docs[0].sent >= context {
			msg += ", sent before"
		}
		return msg + " (" + givesUp + ")"
	}
	msg := fmt.Sprintf("warming up %d prompt(s) of %s tokens", len(docs), rundoc.ContextLabel(context))
	if whole > 0 {
		msg += fmt.Sprintf(", %d sent before", whole)
	}
	if grown > 0 {
		msg += fmt.Sprintf(", %d extending shorter ones sent before", grown)
	}
	return msg + " (" + givesUp + ")"
}

// warmUp sends each prompt once with max_tokens 1 so the server's prefix
// cache holds it when the window starts (METHOD.md: Warm-up).
// It returns the prompt length the server reported for the first prompt.
// started is told the wait before the first request is sent, for the
// progress line.
func (r *Runner) warmUp(ctx context.Context, run *rundoc.Run, prompts []string, promptLen int, started func(*stuckWait)) (int, error) {
	// The server prefills the N prompts one after another in the worst
	// case, so the budget is for all of their tokens.
	w := r.untilFirstToken(ctx, run, promptLen, len(prompts)*max(promptLen, 1))
	defer w.cancel()
	started(w)
	var wg sync.WaitGroup
	errs := make([]error, len(prompts))
	var promptTokens int
	for i, p := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Client.Stream(w.ctx, r.request(r.modelID, p, 1), nil)
			errs[i] = w.explain(res, err)
			if i == 0 {
				promptTokens = res.PromptTokens
			}
		}()
	}
	wg.Wait()
	var (
		tl    *client.PromptTooLongError
		stuck *StuckError
	)
	for _, err := range errs {
		if errors.As(err, &tl) || errors.As(err, &stuck) {
			return 0, err // the most useful of several errors, said once
		}
	}
	return promptTokens, joinDistinct(errs)
}

// joinDistinct joins errors whose messages differ, once each: N requests
// that failed alike give one sentence, not N lines of the same one.
func joinDistinct(errs []error) error {
	var out []error
	count := map[string]int{}
	for _, err := range errs {
		if err == nil {
			continue
		}
		if count[err.Error()]++; count[err.Error()] == 1 {
			out = append(out, err)
		}
	}
	if len(out) == 1 {
		if n := count[out[0].Error()]; n > 1 {
			return fmt.Errorf("all %d requests: %w", n, out[0])
		}
		return out[0]
	}
	return errors.Join(out...)
}

// window is one decode cell's streams in progress: the ramp from the first
// send to steady state, then the window of length D that the figures
// describe (METHOD.md: Decode cells, step 3).
type window struct {
	runner    *Runner
	run       *rundoc.Run
	cell      *rundoc.Cell
	prompts   []string
	d         time.Duration // the window's length D in the card's time
	speed     float64
	maxOutput int
	adaptive  bool

	clk cardClock // set at the first send; offsets count from it
	// live counts tokens by arrival for the readiness check (each
	// stream's first token) and, once the window opens, in bins for an
	// adaptive window's controller.
	live *live
	// opened is closed when the window opens; baseline is the readiness
	// sample taken at that moment (nil without one).
	opened   chan struct{}
	baseline *rundoc.ServerSample
	// abort ends the streams at once (a request failed during the ramp).
	abort     context.CancelFunc
	stoppedAt time.Duration // where an adaptive window closed early, from its opening (0: it did not)
	// rampQueued is true when the server held requests waiting at the last
	// readiness check of a ramp that timed out.
	rampQueued bool
	// gone watches for a server that went away during the cell (gone.go).
	gone goneWatch
	// progress is the runner's clock (UnixNano) at the streams' last token
	// or send; stalled is set when they went silent for the stall limit
	// while the server showed no full KV cache, capacity when it showed one
	// (stall.go).
	progress atomic.Int64
	// starved reads the time this process was kept from running
	// (Runner.Starved), and progressStarved is what it read at the last
	// progress: a silence counts without the freezes inside it.
	starved         func() time.Duration
	progressStarved atomic.Int64
	// reported is the time up to which the lag meter has reported every
	// freeze (lagMeter.reported): the readiness check reads the ramp's
	// marks no further.
	reported func() time.Time
	stalled  *StalledError
	capacity string
	// watch is the stall check's state (watchOn, watchLingering,
	// watchDecided), shared with the window's closing timer (closeLive).
	watch atomic.Int32
	// evidence is what the closed window's tally says about its counts,
	// for judge once the cross-check is done.
	evidence *evidence
	// drainCut is set when the window closed before every stream had read
	// up to its end (drain).
	drainCut atomic.Bool
	// bodies are the streams' request bodies, encoded before the first
	// send (bodyErrs: why one could not be).
	bodies   [][]byte
	bodyErrs []error
	// spec holds the server's drafting counters at the window's opening
	// and at its last sample (spec.go).
	spec specSpan
}

// drainMax bounds how long a window's close waits for streams still
// reading up to its end (drain): longer than any lag of a client that
// keeps up, short against a cell.
const drainMax = time.Second

// drain waits, for a simulated server, until every stream in flight has
// read up to card offset end from the window's opening, so that the
// tokens the window ends with are counted. The simulator stamps its chunks
// (docs/simulator.md), so a client the host runs late reads them late but
// places them where the card produced them: when the wall clock says the
// window is over, the last of them may still be unread. A real server's
// chunks are timed on arrival, when the wall clock has passed the end, so
// it has nothing to wait for. After drainMax the window closes anyway and
// drainCut is set: the client could not keep up.
func (w *window) drain(ctx context.Context, end time.Duration) {
	open, ok := w.live.opening()
	if !ok || !w.run.Simulated {
		return
	}
	give := time.Now().Add(drainMax)
	for !w.live.readPast(open + end) {
		if time.Now().After(give) {
			w.drainCut.Store(true)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// noteLag records the client's lag behind a simulated server's clock on
// the cell (CellWindow.ClientLagS) and says where it could not keep up.
// The simulator's stamps place every token where the card made it, so a
// lag moves no figure by itself; it does where the client acts on its own
// clock: when the window closed before the last tokens were read
// (drainCut), when it sent the streams' first requests apart (sendSpread,
// from maxSendSpread of the ramp), and when a stream stood idle between a
// request's end and its next send, which the card would not have
// (idleShare, from maxIdleShare of the streams' time in the window); and
// a lag of half the window or more (maxLagShare), which the simulator
// shares (it released tokens, and took requests in, that late). end is the
// window's length.
func (w *window) noteLag(reqs []request, end time.Duration) {
	if !w.run.Simulated {
		return
	}
	var lag time.Duration
	for i := range reqs {
		lag = max(lag, reqs[i].lag)
	}
	w.cell.ClientLagS = round(lag.Seconds(), 3)
	late := "the client could not keep up with the simulator (it read tokens up to " + fmtSeconds(w.cell.ClientLagS) + " of card time late)"
	if w.drainCut.Load() {
		addNote(w.cell, late+": the window closed before it had read them all; run the simulator at a lower speed")
		return
	}
	if spread, ramp := sendSpread(reqs); spread > 0 && float64(spread) >= maxSendSpread*float64(ramp) {
		addNote(w.cell, fmt.Sprintf("%s: it sent its streams' first requests over %s of card time, %.0f%% of the ramp to their first tokens, "+
			"where the card would have had them at once; run the simulator at a lower speed", late, fmtSeconds(spread.Seconds()), 100*float64(spread)/float64(ramp)))
		return
	}
	if share, most := idleShare(reqs, len(w.prompts), end); share >= maxIdleShare {
		addNote(w.cell, fmt.Sprintf("%s: its streams stood idle for %.1f%% of the window between a request's end and the next send "+
			"(up to %s of card time); run the simulator at a lower speed", late, 100*share, fmtSeconds(most.Seconds())))
		return
	}
	if end > 0 && lag >= time.Duration(maxLagShare*float64(end)) {
		// A lag this long is the simulator's too (its releases fell behind,
		// and so did its taking in of requests), not only the reader's.
		addNote(w.cell, late+", half the window's length or more; run the simulator at a lower speed")
	}
}

// maxLagShare is the share of the window's length from which a client's
// lag says the simulator was late too, and the figure with it: the CI's
// 16K×16 at 100× under -race read 277.9 tok/s against 297.6 with a lag of
// 14.8 s in a 15 s window and no other sign; cells with lags up to 7.5 s
// (half of 15 s) read within their ± in every run seen (16K×4: 9.8 s, still
// right, is said too: the rule errs on the side of saying).
const maxLagShare = 0.5

// maxSendSpread is the share of the ramp (from the first send to the
// last stream's first token) over which the client may spread its streams'
// first sends before the cell says so: the ramp's requests queue for the
// card together, and their TTFT, per-request rate and TBT (over each
// request's whole stream) depend on how they arrived.
const maxSendSpread = 0.1

// sendSpread is how far apart, in card time, the client sent its streams'
// first requests (which it sends at once), and the ramp: from the first of
// those sends to the last of their first tokens (0 when one has none).
func sendSpread(reqs []request) (spread, ramp time.Duration) {
	first := map[int]request{}
	for _, rq := range reqs {
		if f, ok := first[rq.stream]; !ok || rq.sent < f.sent {
			first[rq.stream] = rq
		}
	}
	if len(first) < 2 {
		return 0, 0
	}
	lo, hi, lastToken := time.Duration(math.MaxInt64), time.Duration(math.MinInt64), time.Duration(math.MinInt64)
	for _, rq := range first {
		if !rq.hasFirstText {
			return 0, 0
		}
		lo, hi, lastToken = min(lo, rq.sent), max(hi, rq.sent), max(lastToken, rq.firstText)
	}
	return hi - lo, lastToken - lo
}

// maxIdleShare is the share of the streams' time in the window that the
// client may leave idle between requests before the cell says so: the
// figure reads that much low, against a 95% half-width of about 1% in a
// steady cell. A client that keeps up re-sends within milliseconds.
const maxIdleShare = 0.01

// idleShare is the share of the streams' time in a window [0, end) that
// no request of theirs was in flight because the previous one had ended
// and the client had not yet sent the next, and the longest such gap.
// Offsets count from the window's opening (shift).
func idleShare(reqs []request, streams int, end time.Duration) (float64, time.Duration) {
	if streams == 0 || end <= 0 {
		return 0, 0
	}
	byStream := map[int][]request{}
	for _, rq := range reqs {
		byStream[rq.stream] = append(byStream[rq.stream], rq)
	}
	var idle, most time.Duration
	for _, rs := range byStream {
		sort.Slice(rs, func(a, b int) bool { return rs[a].sent < rs[b].sent })
		for k := 1; k < len(rs); k++ {
			prev := rs[k-1]
			if !prev.done || len(prev.chunks) == 0 {
				continue
			}
			// From the server's last token (its stamp), not from when the
			// client read it: the card was idle from there.
			from, to := max(prev.chunks[len(prev.chunks)-1].at, 0), min(rs[k].sent, end)
			if to > from {
				idle += to - from
				most = max(most, to-from)
			}
		}
	}
	return float64(idle) / (float64(streams) * float64(end)), most
}

// measure runs the cell's streams: it sends them, opens the window at
// steady state (follow), keeps the streams in flight until the window
// closes, then derives the cell's figures from what was captured.
func (w *window) measure(ctx context.Context, index, total int) {
	r := w.runner
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.abort = cancel

	var stopTelemetry func() []hardware.GPUSample
	if r.Telemetry != nil {
		stopTelemetry = r.Telemetry.StartWindow()
	}
	// Counters are read before the first send: the cross-check counts every
	// token the cell's requests received, ramp included.
	before := r.readCounters(ctx, w.run)
	r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
		Message: w.rampMessage()})
	// Bodies are encoded before the first send: a 16K-token prompt is
	// about 70 KB of JSON, and N of them encoded as the streams start
	// would stagger the first sends by as much (×S on a simulator).
	w.bodies, w.bodyErrs = make([][]byte, len(w.prompts)), make([]error, len(w.prompts))
	for i, p := range w.prompts {
		w.bodies[i], w.bodyErrs[i] = r.request(r.modelID, p, w.maxOutput).Body()
	}
	w.clk = cardClock{start: time.Now(), speed: w.speed}
	w.starved, w.reported = r.Starved, time.Now
	if w.starved == nil {
		lag := startLagMeter(func(from, to time.Time) {
			if _, open := w.live.opening(); !open {
				w.live.markFrozen(w.clk.at(from), w.clk.at(to))
			}
		})
		defer lag.stop()
		w.starved, w.reported = lag.starved, lag.reported
	}
	w.progressed()

	var samples []rundoc.ServerSample
	var inFlight []float64
	var cpu cpuShare
	samplesDone := make(chan struct{})
	go func() {
		defer close(samplesDone)
		select {
		case <-w.opened:
			cpu.start(r)
			if w.run.Server.HasMetrics {
				samples, inFlight = w.sampleMetrics(wctx, w.baseline)
			}
		case <-wctx.Done():
		}
	}()
	var reqs []request
	done := make(chan struct{})
	go func() {
		defer close(done)
		reqs = w.streams(wctx)
	}()
	w.follow(wctx, done, cancel, index, total)
	open, isOpen := w.live.opening()
	if !isOpen {
		open = w.clk.at(time.Now()) // never opened: cancelled or failed in the ramp
	}
	measured := min(max(w.clk.at(time.Now())-open, 0), w.d)
	if w.stoppedAt > 0 {
		measured = w.stoppedAt
	}
	cancel()
	<-samplesDone
	w.cell.ClientCPUPct = cpu.pct(r)

	var gpu []hardware.GPUSample
	if stopTelemetry != nil {
		gpu = stopTelemetry()
	}
	shift(reqs, open)
	w.close(reqs, measured, samples, inFlight, gpu, ctx.Err() != nil)
	if ctx.Err() != nil {
		return
	}
	if w.stalled != nil {
		w.markStalled(reqs, open)
		return
	}
	// A window whose streams went silent ends without a failure: asking
	// once at its close tells a dead server from a slow one.
	if ev := w.gone.check(ctx, r); ev != nil {
		w.markGone(ev, reqs)
		return
	}
	after := r.readCounters(ctx, w.run)
	w.crossCheck(before, after, reqs)
	w.specFigures(before, after)
	judge(w.cell, w.evidence)
}

// shift makes every offset of reqs count from the window's opening (card
// offset open from the first send) instead of the first send: requests
// of the ramp then have negative send times, and the tally counts only
// what arrived at or after 0.
func shift(reqs []request, open time.Duration) {
	for i := range reqs {
		rq := &reqs[i]
		rq.sent -= open
		rq.ended -= open
		rq.firstText -= open
		for j := range rq.chunks {
			rq.chunks[j].at -= open
		}
	}
}

// follow runs the cell from the measuring goroutine until done closes, so
// observers see events in order: until the window opens it checks
// readiness every rundoc.SteadyCheck (openWhenSteady); once open, it closes
// the window after D (stop), an adaptive window as soon as it may
// (stopAt), and it reports progress once a second.
func (w *window) follow(ctx context.Context, done <-chan struct{}, stop func(), index, total int) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	ready := time.NewTicker(max(w.clk.real(rundoc.SteadyCheck), minCheck))
	defer ready.Stop()
	readyC, exited := ready.C, w.runner.Exited
	stall := time.NewTicker(w.stallCheckEvery())
	defer stall.Stop()
	stallC := stall.C
	var (
		check  <-chan time.Time
		timer  *time.Timer
		steady = newSteadiness()
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-done:
			return
		case <-exited:
			exited = nil // closed: once is enough
			if w.gone.check(ctx, w.runner) != nil {
				stop()
			}
		case <-readyC:
			if !w.openWhenSteady(ctx, steady) {
				continue
			}
			readyC = nil
			timer = time.AfterFunc(w.clk.real(w.d), func() {
				w.drain(ctx, w.d)
				w.closeLive(stop) // the window closes: open requests are cancelled
			})
			if w.adaptive {
				t := time.NewTicker(max(w.clk.real(checkEvery), minCheck))
				defer t.Stop()
				check = t.C
			}
			w.runner.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
				Message: w.measuringMessage()})
		case <-stallC:
			end, decided := w.checkStall(ctx)
			lingering := w.watch.Load() == watchLingering
			if decided {
				stallC = nil
				lingering = w.watch.Swap(watchDecided) == watchLingering
			}
			if end || lingering && (decided || !w.silent()) {
				stop() // a stalled or gone server fails the cell and ends the run (measure)
			}
		case <-check:
			if end, ok := w.stopAt(w.sinceOpen(time.Now())); ok {
				w.stoppedAt, check = end, nil
				go func() {
					w.drain(ctx, end)
					stop()
				}()
			}
		case <-tick.C:
			if el := w.sinceOpen(time.Now()).Seconds(); el > 0 {
				w.runner.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
					LiveTokS: w.live.windowTokens() / el})
			}
		}
	}
}

// sinceOpen is the card time from the window's opening to instant t (0
// before it opens).
func (w *window) sinceOpen(t time.Time) time.Duration {
	open, ok := w.live.opening()
	if !ok {
		return 0
	}
	return max(w.frontier(w.clk.at(t))-open, 0)
}

// frontier is how far the client has read into the card's time at card
// offset now: for a simulated server, the oldest of its streams' latest
// chunks, placed by the simulator's stamps (a client the host runs late
// knows the streams only as they were when it read them), never after now;
// for any other server, now. The ramp's steadiness and an adaptive
// window's progress are judged at the frontier, so a client that lags
// neither opens the window late (seeing the streams start late) nor stops
// it early (counting time it has not read yet).
func (w *window) frontier(now time.Duration) time.Duration {
	if !w.run.Simulated {
		return now
	}
	return w.live.frontier(now)
}

// close derives the cell's figures and status from the captured requests
// (accumulate, derive, classify); their offsets count from the window's
// opening. measured is the card time the window lasted, less than D when
// the run was cancelled. inFlight pairs the server's samples with the
// client's open requests (sampleMetrics).
func (w *window) close(reqs []request, measured time.Duration, samples []rundoc.ServerSample, inFlight []float64, gpu []hardware.GPUSample, cancelled bool) {
	end := w.d
	if w.stoppedAt > 0 {
		end = w.stoppedAt
	}
	ref := w.d
	if _, open := w.live.opening(); !open {
		end, ref = 0, w.d // failed or cancelled before steady state: nothing was measured
	}
	if measured > 0 && (cancelled || measured < end) {
		// The window was cut short (the run was cancelled, or its streams
		// ended before its close: a server that went away, requests that
		// all broke): rates are over the part measured, not projected to a
		// whole window as an adaptive early stop's are, nor spread over a
		// nominal D the cell never lasted (a Failed cell that lasted 10.2 s
		// of 20 read half its rate).
		end, ref = measured, measured
	}
	t := newTally(end, ref, len(w.prompts))
	t.maxOutput = w.maxOutput
	t.capacity = w.capacity
	for i := range reqs {
		t.add(&reqs[i])
	}
	if _, open := w.live.opening(); open && !cancelled {
		// Per-request tok/s and TBT read as the published window would
		// (perRequestAtRef): a longer window is cut at its length.
		t.closeAt(rundoc.ReferenceWindow, reqs, len(w.prompts))
	}
	d := end.Seconds()
	w.cell.MeasuredS = round(measured.Seconds(), 3)
	derive(w.cell, t, max(d, 1e-9))
	deriveServer(w.cell, w.run.Server, samples, inFlight, gpu, d)
	classify(w.cell, t, cancelled, d)
	w.evidence = evidenceOf(t)
	if w.cell.Status == rundoc.StatusFailed && len(t.errs) > 0 {
		w.runner.cellErr = t.errs[0]
	}
	classifySlots(w.cell, ServerLimits(w.run.Server))
	w.classifyRamp()
	reported := []int{w.cell.PromptTokens} // the warm-up's
	for i := range reqs {
		reported = append(reported, reqs[i].promptTokens)
	}
	checkPromptLength(w.cell, reported)
	w.noteLag(reqs, time.Duration(d*float64(time.Second)))
}

// classifyRamp words a ramp that never reached steady state (METHOD.md:
// Decode cells, step 3): the cell was measured anyway, as Requests queued
// when the server held requests waiting, otherwise with a note.
func (w *window) classifyRamp() {
	c := w.cell
	if !c.WarmupTimedOut || c.Status == rundoc.StatusCancelled {
		return
	}
	msg := fmt.Sprintf("steady state did not come within %s (%s), so the window opened anyway", fmtSeconds(c.RampS), c.Readiness)
	if w.rampQueued && c.Status == rundoc.StatusValid {
		c.Status, c.Reason = rundoc.StatusQueued, msg
		return
	}
	addNote(c, msg)
}

// streams runs every stream of the cell and returns their requests.
func (w *window) streams(ctx context.Context) []request {
	results := make([][]request, len(w.prompts))
	var wg sync.WaitGroup
	for i := range w.prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = w.stream(ctx, i)
		}()
	}
	wg.Wait()
	var out []request
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// over reports whether card offset at (from the first send) is past the
// window's end; never before the window opens.
func (w *window) over(at time.Duration) bool {
	open, ok := w.live.opening()
	return ok && at >= open+w.d
}

// stream keeps one stream in flight through the ramp and the window: each
// request re-sends the same (cached) prompt as soon as the previous one
// finishes. A request that fails during the ramp ends the cell at once:
// one failed request fails a cell (METHOD.md), and waiting for a steady
// state that cannot come would cost the whole ramp limit.
func (w *window) stream(ctx context.Context, i int) []request {
	var out []request
	body, err := w.bodies[i], w.bodyErrs[i]
	if err != nil {
		now := w.clk.at(time.Now())
		w.abort()
		return []request{{err: err, sent: now, ended: now}}
	}
	// A stream re-sends until the window is over where the client has
	// read up to (frontier): on a simulator a lagging client would stop
	// re-sending before the card's window ended.
	for ctx.Err() == nil && !w.over(w.frontier(w.clk.at(time.Now()))) {
		rq := request{stream: i}
		w.live.sent(i)
		w.progressed()
		w.live.busy[i].Store(1)
		w.live.inFlight.Add(1)
		res, err := w.runner.Client.StreamBody(ctx, body, func(at time.Time, n int) {
			card := w.clk.at(at)
			rq.chunks = append(rq.chunks, chunkAt{at: card, tokens: n})
			w.live.add(i, card, n)
			if n > 0 {
				w.progressed()
			}
		})
		w.live.inFlight.Add(-1)
		w.live.busy[i].Store(0)
		rq.capture(w.clk, res, err, ctx.Err() != nil)
		out = append(out, rq)
		if rq.err != nil && connectionFailure(rq.err) && w.gone.failed(ctx, w.runner, rq.ended) {
			w.abort() // the server is gone: the other streams end now, not at the window's close
			break
		}
		if rq.err != nil {
			if _, open := w.live.opening(); !open {
				w.abort()
				break
			}
			var tl *client.PromptTooLongError
			if errors.As(err, &tl) {
				break
			}
			// Do not hammer a failing server: pause briefly before retrying.
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return out
}

// sampleMetrics collects /metrics samples every MetricsInterval until the
// window closes, after the baseline: the readiness sample taken as it
// opened. inFlight[i] is the client's count of open requests while sample
// i was taken (the mean of its count as the scrape left and returned; NaN
// for the baseline), which deriveServer pairs with the server's gauges.
func (w *window) sampleMetrics(ctx context.Context, baseline *rundoc.ServerSample) (out []rundoc.ServerSample, inFlight []float64) {
	if baseline != nil {
		out, inFlight = append(out, *baseline), append(inFlight, math.NaN())
	}
	// The interval is in the served card's time: a simulator S times fast
	// is sampled S times as often, so its cells get as many samples as a
	// real card's would (a 30 s window at speed 20 lasts 1.5 real seconds).
	t := time.NewTicker(max(scaleDown(w.runner.MetricsInterval, w.speed), minMetricsInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return out, inFlight
		case <-t.C:
			if !w.over(w.clk.at(time.Now())) {
				before := w.live.inFlight.Load()
				if s, at, sp := w.scrape(ctx); s != nil {
					s.T = w.sampleT(at)
					w.spec.last = sp
					if w.spec.first == nil {
						w.spec.first = sp // no baseline: the window's first sample
					}
					out = append(out, *s)
					inFlight = append(inFlight, float64(before+w.live.inFlight.Load())/2)
				}
			}
		}
	}
}

// minMetricsInterval bounds how often a fast simulator is scraped, so the
// scrapes never compete with the streams for the client's CPU.
const minMetricsInterval = 20 * time.Millisecond

// scrape takes one sample and returns it with the time it was taken; the
// caller sets T. A failed scrape is skipped (nil), not fatal.
func (w *window) scrape(ctx context.Context) (*rundoc.ServerSample, time.Time, *specReading) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	m, err := w.runner.Client.Metrics(sctx)
	if err != nil {
		return nil, time.Time{}, nil
	}
	return &rundoc.ServerSample{
		Running: m.Running, Waiting: m.Waiting, KVUsage: rundoc.Reported(m.KVUsage, m.HasKVUsage),
		PrefixCacheQueries: rundoc.Reported(m.PrefixCacheQueries, m.HasPrefixCache),
		PrefixCacheHits:    rundoc.Reported(m.PrefixCacheHits, m.HasPrefixCache),
		Preemptions:        rundoc.Reported(m.Preemptions, m.HasPreemptions),
	}, time.Now(), readSpec(m)
}

// sampleT is the sample time T of an instant: seconds of the served card's
// time since the window opened, negative before it.
func (w *window) sampleT(at time.Time) float64 {
	open, _ := w.live.opening()
	return round((w.clk.at(at) - open).Seconds(), 3)
}

// measuringMessage says what the window is about to do (measuringMessage);
// an adaptive window says its precision and that D is its longest.
func (w *window) measuringMessage() string {
	msg := measuringMessage(len(w.prompts), w.d, w.speed)
	if w.adaptive {
		msg = strings.Replace(msg, " for ", fmt.Sprintf(" until total tok/s is known within ±%g%%, for at most ", 100*w.run.Plan.Precision), 1)
	}
	return msg
}
