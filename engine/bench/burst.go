package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// burstRequest is one request of a burst as captured, in card-time offsets
// from the burst's first send.
type burstRequest struct {
	sent, first, last time.Duration
	hasFirst, hasLast bool
	done              bool
	// finishLength: the server ended the request with finish_reason
	// "length".
	finishLength bool
	tokens       int
	source       string
	promptTokens int
	err          error
}

// latency is the request's end-to-end latency: its send to its last token.
func (b burstRequest) latency() time.Duration { return b.last - b.sent }

// burst runs one burst cell (METHOD.md: Burst cells): the plan check of a
// decode cell, the warm-up of its prompts, WarmupRequests unmeasured
// requests at concurrency N, then exactly K measured requests with at most
// N in flight, waited for to the last token.
func (r *Runner) burst(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell, index, total int) {
	n := cell.Concurrency
	cell.RequestCount = run.Plan.RequestCountFor(n)
	_, prompts, note, ok := r.openCell(ctx, run, cell)
	defer addNote(cell, note)
	if !ok {
		return
	}
	var err error
	progress := func(msg string) {
		r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: run, Cell: cell, Index: index, Total: total, Message: msg})
	}
	cell.PromptTokens, err = r.warmUp(ctx, run, distinct(prompts), cell.Context, func(w *stuckWait) {
		progress(fmt.Sprintf("warming up the burst's prompt(s) of %s tokens (%s)", rundoc.ContextLabel(cell.Context), w.givesUp()))
	})
	if err == nil {
		// The warm-up requests run the card as the measured ones will (N in
		// flight, M tokens each), so the first measured wave does not pay
		// for a cold server: one wave, one request per lane.
		cell.WarmupRequests = n
		progress(fmt.Sprintf("sending %d warm-up request(s), %d at a time", n, n))
		_, err = r.sendBurst(ctx, run, prompts, n, n)
		var limit *BurstLimitError
		if errors.As(err, &limit) {
			limit.Warmup = true
		}
	}
	if err != nil {
		r.fail(cell, err)
		if cell.Status == rundoc.StatusFailed && !errors.As(err, new(*BurstLimitError)) {
			cell.Reason = "warm-up failed: " + cell.Reason
		}
		return
	}
	k := cell.RequestCount
	progress(fmt.Sprintf("sending %d request(s), at most %d in flight, waiting for all of them (%s of card time at most)",
		k, n, rundoc.ShortDuration(run.Plan.BurstLimit())))
	cell.WindowStart = r.Now().UTC().Truncate(time.Millisecond)
	waiting := r.watchWaiting(ctx, run)
	reqs, err := r.sendBurst(ctx, run, prompts, k, n)
	waits := waiting()
	burstFigures(cell, reqs)
	for _, rq := range reqs {
		if rq.finishLength && rq.tokens < run.Plan.MaxOutput {
			cell.EndedByLength++
		}
	}
	switch {
	case ctx.Err() != nil:
		cell.Status, cell.Reason = rundoc.StatusCancelled, "the run was cancelled during this burst; figures cover the requests that finished"
	case err != nil && errors.As(err, new(*BurstLimitError)):
		r.fail(cell, err)
	case err != nil:
		r.fail(cell, err)
		if cell.Status == rundoc.StatusFailed {
			cell.Reason = fmt.Sprintf("%d of %d requests finished before one failed: %s", cell.CompletedRequests, k, cell.Reason)
		}
	case cell.EndedByLength > 0:
		// As a decode cell's (classify): the streams were shorter than M.
		cell.Status = rundoc.StatusExceedsLength
		cell.Reason = fmt.Sprintf("%d request(s) ended by length before %d tokens: prompt + output reach the server's context limit, so the requests were shorter than planned",
			cell.EndedByLength, run.Plan.MaxOutput)
	case cell.CompletedRequests < k:
		cell.Status = rundoc.StatusFailed
		cell.Reason = fmt.Sprintf("%d of %d requests ended without finishing with tokens: the server closed their streams early", k-cell.CompletedRequests, k)
	case sustainedWaiting(waits):
		// As a sustained cell's (classify): a queue that held from one
		// sample to the next, not a request arriving between two steps.
		most := 0.0
		for _, w := range waits {
			most = max(most, w.Waiting)
		}
		cell.Status, cell.Reason = rundoc.StatusQueued, fmt.Sprintf("the server reported up to %.0f waiting requests", most)
	default:
		cell.Status = rundoc.StatusValid
	}
	classifySlots(cell, ServerLimits(run.Server))
	reported := []int{cell.PromptTokens}
	for _, rq := range reqs {
		reported = append(reported, rq.promptTokens)
	}
	checkPromptLength(cell, reported)
}

// watchWaiting samples the server's waiting gauge during a burst, every
// MetricsInterval of the card's time, and returns the function that stops
// it and gives the samples (T from 1 on, Waiting alone: they are judged,
// not stored). A server without /metrics gives none.
func (r *Runner) watchWaiting(ctx context.Context, run *rundoc.Run) func() []rundoc.ServerSample {
	if !run.Server.HasMetrics {
		return func() []rundoc.ServerSample { return nil }
	}
	wctx, stop := context.WithCancel(ctx)
	var out []rundoc.ServerSample
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(scaleDown(r.MetricsInterval, run.Plan.Speed()), minMetricsInterval))
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
				sctx, cancel := context.WithTimeout(wctx, 2*time.Second)
				m, err := r.Client.Metrics(sctx)
				cancel()
				if err == nil {
					out = append(out, rundoc.ServerSample{T: float64(len(out) + 1), Running: m.Running, Waiting: m.Waiting})
				}
			}
		}
	}()
	return func() []rundoc.ServerSample {
		stop()
		<-done
		return out
	}
}

// BurstLimitError is why a burst cell failed at the plan's time limit
// (Plan.BurstLimit): how many of its requests finished within it.
type BurstLimitError struct {
	// Requests were sent (K, or the warm-up's N); Finished of them ended
	// within Limit, the card time allowed.
	Requests, Finished int
	Limit              time.Duration
	// Warmup: it was the cell's warm-up requests that did not finish.
	Warmup bool
}

func (e *BurstLimitError) Error() string {
	what := "burst"
	if e.Warmup {
		what = "burst's warm-up"
	}
	return fmt.Sprintf("the %s did not finish its %d requests within %s of card time (%d finished): lower --request-count or --max-output, or raise --burst-limit",
		what, e.Requests, rundoc.ShortDuration(e.Limit), e.Finished)
}

// sendBurst sends k requests of M tokens with at most n in flight, request
// i with prompt i mod len(prompts), and waits for all of them. The first
// request that fails ends the others (one failed request fails a cell);
// its error is returned. The whole burst may last the plan's BurstLimit of
// card time, after which it is cut with a *BurstLimitError. Offsets are
// card time from the first send.
func (r *Runner) sendBurst(ctx context.Context, run *rundoc.Run, prompts []string, k, n int) ([]burstRequest, error) {
	speed := run.Plan.Speed()
	limited, cancelLimit := context.WithTimeout(ctx, scaleDown(run.Plan.BurstLimit(), speed))
	defer cancelLimit()
	bctx, abort := context.WithCancel(limited)
	defer abort()
	bodies := make([][]byte, len(prompts))
	for i, p := range prompts {
		var err error
		if bodies[i], err = r.request(r.modelID, p, run.Plan.MaxOutput).Body(); err != nil {
			return nil, err
		}
	}
	clk := cardClock{start: time.Now(), speed: speed}
	out := make([]burstRequest, k)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range min(n, k) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= k || bctx.Err() != nil {
					return
				}
				res, err := r.Client.StreamBody(bctx, bodies[i%len(bodies)], nil)
				rq := burstRequest{sent: clk.at(res.Sent), done: err == nil && res.Finished, source: res.Source,
					promptTokens: res.PromptTokens, tokens: res.Tokens, finishLength: err == nil && res.FinishLength}
				if !res.FirstToken.IsZero() {
					rq.first, rq.hasFirst = clk.at(res.FirstToken), true
				}
				if !res.LastToken.IsZero() {
					rq.last, rq.hasLast = clk.at(res.LastToken), true
				}
				if err != nil && bctx.Err() == nil {
					rq.err = err
					errOnce.Do(func() { firstErr = err; abort() })
				}
				out[i] = rq
			}
		}()
	}
	wg.Wait()
	switch {
	case firstErr != nil:
		return out, firstErr
	case ctx.Err() != nil:
		return out, ctx.Err()
	case limited.Err() != nil:
		finished := 0
		for _, rq := range out {
			if rq.done {
				finished++
			}
		}
		return out, &BurstLimitError{Requests: k, Finished: finished, Limit: run.Plan.BurstLimit()}
	}
	return out, nil
}

// burstFigures derives a burst cell's figures from its measured requests
// (METHOD.md: Burst cells): latency and TTFT quantiles with the bootstrap
// ± of their medians, and requests/s and tok/s over the burst, from the
// first send to the last token, with the ± of the mean latency they rest
// on.
func burstFigures(c *rundoc.Cell, reqs []burstRequest) {
	var lat, ttft []float64
	var end time.Duration
	tokens, source := 0, ""
	for _, rq := range reqs {
		if !rq.done || !rq.hasLast {
			continue
		}
		lat = append(lat, ms(rq.latency()))
		if rq.hasFirst {
			ttft = append(ttft, ms(rq.first-rq.sent))
		}
		end = max(end, rq.last)
		tokens += rq.tokens
		if source == "" {
			source = rq.source
		} else {
			source = weaker(source, rq.source, true)
		}
	}
	c.CompletedRequests, c.OutputTokens, c.TokenCountSource = len(lat), tokens, source
	if len(lat) == 0 || end <= 0 {
		return
	}
	d := end.Seconds()
	c.MeasuredS = round(d, 3)
	mean, half := meanCI(lat)
	c.LatencyMeanMs = round(mean, 1)
	c.LatencyMsCI95 = round(bootstrapMedianCI(lat), 2)
	c.LatencyMs = round(Median(lat), 1)
	c.LatencyP90Ms, c.LatencyP99Ms = round(Quantile(lat, 0.9), 1), round(Quantile(lat, 0.99), 1)
	if len(ttft) > 0 {
		c.TTFTMsCI95 = round(bootstrapMedianCI(ttft), 2)
		c.TTFTMs = round(Median(ttft), 1)
		c.TTFTP90Ms, c.TTFTP99Ms = round(Quantile(ttft, 0.9), 1), round(Quantile(ttft, 0.99), 1)
	}
	// With N lanes each serving its requests back to back, the burst lasts
	// about K/N mean latencies, so requests/s ≈ N / mean latency and both
	// rates carry the mean latency's relative half-width (the delta
	// method: a ratio's relative error is its denominator's).
	rel := 0.0
	if mean > 0 {
		rel = half / mean
	}
	rps, tps := float64(len(lat))/d, float64(tokens)/d
	c.RequestsPerS, c.RequestsPerSCI95 = round(rps, 3), round(rps*rel, 4)
	c.TotalTokS, c.TotalTokSCI95 = round(tps, 1), round(tps*rel, 2)
}

// AssumedStreamRate is the output tok/s of one stream the estimate of a
// burst cell assumes before any decode or burst cell was measured: a
// mid-range consumer card on a small model (the reference RTX 3060 reads
// about 50 at context 0).
const AssumedStreamRate = 50.0

// burstSeconds estimates a burst cell's time in the card's seconds: its N
// warm-up and K measured requests of M tokens, N at a time, at the rate
// of the cells measured so far: the same cell's burst or sustained rate
// where one ran, else the per-stream rate of the last cell measured at
// that concurrency or any, else AssumedStreamRate per stream.
func burstSeconds(p rundoc.Plan, context, n int, measured []rundoc.Cell) float64 {
	requests := float64(p.RequestCountFor(n) + n)
	total := 0.0 // tok/s of all N streams
	for _, c := range measured {
		if (c.Phase != rundoc.PhaseDecode && c.Phase != rundoc.PhaseBurst) || !c.Status.Ran() || c.TotalTokS <= 0 {
			continue
		}
		switch {
		case c.Context == context && c.Concurrency == n:
			return requests * float64(p.MaxOutput) / c.TotalTokS
		case c.Concurrency == n || total == 0:
			total = c.TotalTokS * float64(n) / float64(c.Concurrency)
		}
	}
	if total == 0 {
		total = AssumedStreamRate * float64(n)
	}
	return requests * float64(p.MaxOutput) / total
}
