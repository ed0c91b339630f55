package bench

import (
	"context"
	"errors"
	"fmt"
	"github.com/rigbench/rigbench/engine/rundoc"
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
	prompts := make([]string, cell.Concurrency)
	for i := range prompts {
		p, err := r.nextPrompt(ctx, cell.Context)
		if err != nil {
			cell.Status, cell.Reason = failure(err)
			return
		}
		prompts[i] = p
	}
	r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: run, Cell: cell, Index: index, Total: total,
		Message: fmt.Sprintf("warming up %d prompt(s) of %s tokens", len(prompts), rundoc.ContextLabel(cell.Context))})
	promptTokens, err := r.warmUp(ctx, run, prompts, cell.Context)
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
		d: scaleDown(run.Plan.Duration(), run.Plan.Speed()), speed: run.Plan.Speed(), maxOutput: m,
	}
	w.measure(ctx, index, total)
}

// warmUp sends each prompt once with max_tokens 1 so the server's prefix
// cache holds it when the window starts (METHOD.md: Warm-up).
// It returns the prompt length the server reported for the first prompt.
func (r *Runner) warmUp(ctx context.Context, run *rundoc.Run, prompts []string, promptLen int) (int, error) {
	// The server prefills the N prompts one after another in the worst
	// case, so the budget is for all of their tokens.
	ctx, cancel, explain := r.untilFirstToken(ctx, run, promptLen, len(prompts)*max(promptLen, 1))
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(prompts))
	var promptTokens int
	for i, p := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Client.Stream(ctx, r.request(run.Server.Model, p, 1), nil)
			errs[i] = explain(err)
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
	return promptTokens, errors.Join(errs...)
}

// window is one decode window in progress.
type window struct {
	runner    *Runner
	run       *rundoc.Run
	cell      *rundoc.Cell
	prompts   []string
	d         time.Duration // the real length of the window: D / speed
	speed     float64
	maxOutput int

	start, end time.Time
	liveTokens atomic.Int64
}

// request is what one request of the window contributed. Times are
// monotonic; only chunks that arrived before the window closed count.
type request struct {
	sent, first, last, ended time.Time
	tokens, chunks           int
	gaps                     []float64 // ms per token between consecutive content chunks
	finished                 bool
	source                   string
	usageTokens              int // final usage total, for final_usage servers
	promptTokens             int
	err                      error
}

func (w *window) measure(ctx context.Context, index, total int) {
	r := w.runner
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var stopTelemetry func() []hardware.GPUSample
	if r.Telemetry != nil {
		stopTelemetry = r.Telemetry.StartWindow()
	}
	var samples []rundoc.ServerSample
	var samplesDone chan struct{}
	if w.run.Server.HasMetrics {
		samplesDone = make(chan struct{})
	}

	// The baseline scrape comes before the first send, so requests that are
	// merely arriving are not mistaken for a queue; counters are measured
	// from it.
	var (
		baseline   *rundoc.ServerSample
		baselineAt time.Time
	)
	if samplesDone != nil {
		baseline, baselineAt = w.scrape(ctx)
	}
	r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
		Message: fmt.Sprintf("measuring %d stream(s) for %s", len(w.prompts), w.d)})
	w.start = time.Now()
	w.end = w.start.Add(w.d)
	w.cell.WindowStart = w.start.UTC()
	if baseline != nil {
		baseline.T = w.sinceStart(baselineAt) // ≤ 0: taken before the window opened
	}
	timer := time.AfterFunc(w.d, cancel) // the window closes: open requests are cancelled
	defer timer.Stop()

	if samplesDone != nil {
		go func() {
			defer close(samplesDone)
			samples = w.sampleMetrics(wctx, baseline)
		}()
	}

	results := make([][]request, len(w.prompts))
	var wg sync.WaitGroup
	for i := range w.prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = w.stream(wctx, i)
		}()
	}

	// Progress once a second from this goroutine, so observers see events in order.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			el := time.Since(w.start).Seconds()
			if el > 0 {
				r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: w.run, Cell: w.cell, Index: index, Total: total,
					LiveTokS: float64(w.liveTokens.Load()) / el / w.speed})
			}
		}
	}
	measured := min(time.Since(w.start), w.d)
	if samplesDone != nil {
		<-samplesDone
	}
	var gpu []hardware.GPUSample
	if stopTelemetry != nil {
		gpu = stopTelemetry()
	}
	w.figures(flatten(results), measured, samples, gpu, ctx.Err() != nil)
}

// stream keeps one stream in flight for the whole window: each request
// re-sends the same (cached) prompt as soon as the previous one finishes.
func (w *window) stream(ctx context.Context, i int) []request {
	var out []request
	body, err := w.runner.request(w.run.Server.Model, w.prompts[i], w.maxOutput).Body()
	if err != nil {
		return []request{{err: err, sent: time.Now(), ended: time.Now()}}
	}
	for ctx.Err() == nil && time.Now().Before(w.end) {
		rq := request{}
		var prev time.Time
		onToken := func(at time.Time, n int) {
			if !at.Before(w.end) {
				return
			}
			rq.chunks++
			if n == 0 {
				return // text without tokens: counted only as a chunk
			}
			if !prev.IsZero() {
				rq.gaps = append(rq.gaps, float64(at.Sub(prev).Microseconds())/1000/float64(n))
			}
			if rq.first.IsZero() {
				rq.first = at
			}
			prev, rq.last = at, at
			rq.tokens += n
			w.liveTokens.Add(int64(n))
		}
		res, err := w.runner.Client.StreamBody(ctx, body, onToken)
		rq.sent, rq.ended, rq.source, rq.promptTokens = res.Sent, res.End, res.Source, res.PromptTokens
		if !res.FirstToken.IsZero() && res.FirstToken.Before(w.end) {
			rq.first = res.FirstToken // TTFT counts to the first chunk with text
		}
		rq.finished = err == nil && res.Finished && res.End.Before(w.end)
		if rq.finished {
			rq.usageTokens = res.Tokens
		}
		if err != nil && ctx.Err() == nil {
			rq.err = err
		}
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

func flatten(rs [][]request) []request {
	var out []request
	for _, r := range rs {
		out = append(out, r...)
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
			if time.Now().Before(w.end) {
				if s, at := w.scrape(ctx); s != nil {
					s.T = w.sinceStart(at)
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

// sinceStart is the sample time T of an instant: seconds of the served
// card's time since the window opened, negative before it.
func (w *window) sinceStart(at time.Time) float64 {
	return round(at.Sub(w.start).Seconds()*w.speed, 3)
}
