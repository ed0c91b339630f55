package bench

import (
	"context"
	"errors"
	"fmt"
	"github.com/rigbench/rigbench/engine/rundoc"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/hardware"
)

// decode runs one decode cell (METHOD.md: Decode cells): plan check,
// warm-up, a fixed window of N closed-loop streams, figures and status.
func (r *Runner) decode(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell, index, total int) {
	m := run.Plan.MaxOutput
	if st := Predict(cell.Context, cell.Concurrency, m, run.Server.MaxModelLen, run.Server.KVCapacityTokens); st != "" {
		cell.Status, cell.Reason = st, predictReason(st, cell.Context, cell.Concurrency, m, run.Server)
		return
	}
	var docs []cellDoc
	if r.docs != nil {
		docs = r.docs.forCell(cell.Context, cell.Concurrency, r.newDoc)
	} else {
		for range cell.Concurrency {
			docs = append(docs, cellDoc{doc: r.newDoc()})
		}
	}
	prompts := make([]string, len(docs))
	for i, d := range docs {
		p, err := r.prompts.Prompt(ctx, cell.Context, d.doc)
		if err != nil {
			cell.Status, cell.Reason = failure(err)
			return
		}
		prompts[i] = p
	}
	waited, note := r.waitIdle(ctx, run)
	cell.IdleWaitS = waited
	defer addNote(cell, note)
	promptTokens, err := r.warmUp(ctx, run, prompts, cell.Context, func(w *stuckWait) {
		r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: run, Cell: cell, Index: index, Total: total,
			Message: warmUpMessage(docs, cell.Context, w.givesUp())})
	})
	if err != nil {
		cell.Status, cell.Reason = failure(err)
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
	}
	if run.Plan.Adaptive() {
		w.live = newLive(w.d, len(prompts))
	}
	w.measure(ctx, index, total)
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

// window is one decode window in progress.
type window struct {
	runner    *Runner
	run       *rundoc.Run
	cell      *rundoc.Cell
	prompts   []string
	d         time.Duration // the window's length D in the card's time
	speed     float64
	maxOutput int

	clk        cardClock // set when the window opens
	liveTokens atomic.Int64
	live       *live         // adaptive windows only
	stoppedAt  time.Duration // where an adaptive window closed early (0: it did not)
}

// measure runs the window: it opens it after a baseline scrape, keeps the
// streams in flight until it closes, then derives the cell's figures from
// what was captured.
func (w *window) measure(ctx context.Context, index, total int) {
	r := w.runner
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var stopTelemetry func() []hardware.GPUSample
	if r.Telemetry != nil {
		stopTelemetry = r.Telemetry.StartWindow()
	}
	// The baseline scrape comes before the first send, so requests that are
	// merely arriving are not mistaken for a queue; counters are measured
	// from it.
	var (
		baseline   *rundoc.ServerSample
		baselineAt time.Time
	)
	if w.run.Server.HasMetrics {
		baseline, baselineAt = w.scrape(ctx)
	}
	before := r.readCounters(ctx, w.run)
	r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
		Message: w.measuringMessage()})
	w.clk = cardClock{start: time.Now(), speed: w.speed}
	w.cell.WindowStart = w.clk.start.UTC()
	if baseline != nil {
		baseline.T = w.sampleT(baselineAt) // ≤ 0: taken before the window opened
	}
	timer := time.AfterFunc(w.clk.real(w.d), cancel) // the window closes: open requests are cancelled
	defer timer.Stop()

	var samples []rundoc.ServerSample
	samplesDone := make(chan struct{})
	go func() {
		defer close(samplesDone)
		if w.run.Server.HasMetrics {
			samples = w.sampleMetrics(wctx, baseline)
		}
	}()
	var reqs []request
	done := make(chan struct{})
	go func() {
		defer close(done)
		reqs = w.streams(wctx)
	}()
	w.follow(done, cancel, index, total)
	measured := min(w.clk.at(time.Now()), w.d)
	if w.stoppedAt > 0 {
		measured = w.stoppedAt
	}
	<-samplesDone

	var gpu []hardware.GPUSample
	if stopTelemetry != nil {
		gpu = stopTelemetry()
	}
	w.close(reqs, measured, samples, gpu, ctx.Err() != nil)
	if ctx.Err() == nil {
		w.crossCheck(before, r.readCounters(ctx, w.run), reqs)
	}
}

// follow reports progress once a second until done closes, from the
// measuring goroutine, so observers see events in order. An adaptive
// window also asks every checkEvery whether it may stop, and closes the
// window (stop) when it may.
func (w *window) follow(done <-chan struct{}, stop func(), index, total int) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var check <-chan time.Time
	if w.live != nil {
		t := time.NewTicker(max(w.clk.real(checkEvery), minCheck))
		defer t.Stop()
		check = t.C
	}
	for {
		select {
		case <-done:
			return
		case <-check:
			if end, ok := w.stopAt(w.clk.at(time.Now())); ok {
				w.stoppedAt, check = end, nil
				stop()
			}
		case <-tick.C:
			if el := w.clk.at(time.Now()).Seconds(); el > 0 {
				w.runner.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
					LiveTokS: float64(w.liveTokens.Load()) / el})
			}
		}
	}
}

// close derives the cell's figures and status from the captured requests
// (accumulate, derive, classify). measured is the card time the window
// lasted, less than D when the run was cancelled.
func (w *window) close(reqs []request, measured time.Duration, samples []rundoc.ServerSample, gpu []hardware.GPUSample, cancelled bool) {
	end := w.d
	if w.stoppedAt > 0 {
		end = w.stoppedAt
	}
	ref := w.d
	if cancelled && measured > 0 {
		// The window was cut short: rates are over the part measured, not
		// projected to a whole window as an adaptive early stop's are.
		end, ref = measured, measured
	}
	t := newTally(end, ref, len(w.prompts))
	t.maxOutput = w.maxOutput
	for i := range reqs {
		t.add(&reqs[i])
	}
	d := end.Seconds()
	w.cell.MeasuredS = round(measured.Seconds(), 3)
	derive(w.cell, t, d)
	deriveServer(w.cell, samples, gpu, d)
	classify(w.cell, t, cancelled, d)
}

// streams runs every stream of the window and returns their requests.
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

// stream keeps one stream in flight for the whole window: each request
// re-sends the same (cached) prompt as soon as the previous one finishes.
func (w *window) stream(ctx context.Context, i int) []request {
	var out []request
	body, err := w.runner.request(w.runner.modelID, w.prompts[i], w.maxOutput).Body()
	if err != nil {
		now := w.clk.at(time.Now())
		return []request{{err: err, sent: now, ended: now}}
	}
	for ctx.Err() == nil && w.clk.at(time.Now()) < w.d {
		rq := request{stream: i}
		res, err := w.runner.Client.StreamBody(ctx, body, func(at time.Time, n int) {
			card := w.clk.at(at)
			rq.chunks = append(rq.chunks, chunkAt{at: card, tokens: n})
			w.liveTokens.Add(int64(n))
			if w.live != nil {
				w.live.add(i, card, n)
			}
		})
		rq.capture(w.clk, res, err, ctx.Err() != nil)
		out = append(out, rq)
		if rq.err != nil {
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
// window closes, after the baseline taken just before it opened.
func (w *window) sampleMetrics(ctx context.Context, baseline *rundoc.ServerSample) []rundoc.ServerSample {
	var out []rundoc.ServerSample
	if baseline != nil {
		out = append(out, *baseline)
	}
	// The interval is in the served card's time: a simulator S times fast
	// is sampled S times as often, so its cells get as many samples as a
	// real card's would (a 30 s window at speed 20 lasts 1.5 real seconds).
	t := time.NewTicker(max(scaleDown(w.runner.MetricsInterval, w.speed), minMetricsInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
			if w.clk.at(time.Now()) < w.d {
				if s, at := w.scrape(ctx); s != nil {
					s.T = w.sampleT(at)
					out = append(out, *s)
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
func (w *window) scrape(ctx context.Context) (*rundoc.ServerSample, time.Time) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	m, err := w.runner.Client.Metrics(sctx)
	if err != nil {
		return nil, time.Time{}
	}
	return &rundoc.ServerSample{
		Running: m.Running, Waiting: m.Waiting, KVUsage: m.KVUsage,
		PrefixCacheQueries: m.PrefixCacheQueries, PrefixCacheHits: m.PrefixCacheHits,
		Preemptions: m.Preemptions,
	}, time.Now()
}

// sampleT is the sample time T of an instant: seconds of the served card's
// time since the window opened, negative before it.
func (w *window) sampleT(at time.Time) float64 {
	return round(w.clk.at(at).Seconds(), 3)
}

// measuringMessage says what the window is about to do (measuringMessage);
// an adaptive window says its precision and that D is its longest.
func (w *window) measuringMessage() string {
	msg := measuringMessage(len(w.prompts), w.d, w.speed)
	if w.live != nil {
		msg = strings.Replace(msg, " for ", fmt.Sprintf(" until total tok/s is known within ±%g%%, for at most ", 100*w.run.Plan.Precision), 1)
	}
	return msg
}
