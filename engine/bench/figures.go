package bench

import (
	"errors"
	"fmt"
	"github.com/rigbench/rigbench/engine/rundoc"
	"math"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/hardware"
)

// figures computes a decode cell's figures and status from its requests
// (METHOD.md: Decode cells, steps 4 and 5).
func (w *window) figures(reqs []request, measured time.Duration, samples []rundoc.ServerSample, gpu []hardware.GPUSample, cancelled bool) {
	c := w.cell
	// Figures are in the server's time: real seconds × speed (1 for a real
	// server), so rates divide by it and durations multiply.
	sp := w.speed
	d := w.d.Seconds() * sp
	if cancelled && measured > 0 {
		// The window was cut short: rates are over the part measured.
		d = measured.Seconds() * sp
	}
	n := float64(c.Concurrency)

	var (
		usage, chunks, completed int
		ttft, gaps, perReq       []float64
		active                   float64
		errs                     []error
		source                   = client.SourceContinuousUsage
	)
	for _, rq := range reqs {
		// Tokens inside the window. Continuous usage gives them per chunk;
		// a server with a final usage chunk only gives the exact total for
		// requests that finished inside the window.
		tokens := rq.tokens
		switch {
		case rq.source == client.SourceFinalUsage && rq.finished:
			tokens = rq.usageTokens
		case rq.source == client.SourceFinalUsage, rq.source == client.SourceChunks:
		}
		source = weaker(source, rq.source, rq.chunks > 0)
		usage += tokens
		chunks += rq.chunks
		if rq.finished {
			completed++
		}
		if !rq.first.IsZero() {
			ttft = append(ttft, ms(rq.first.Sub(rq.sent))*sp)
			if rq.tokens > 1 && rq.last.After(rq.first) {
				perReq = append(perReq, float64(rq.tokens-1)/(rq.last.Sub(rq.first).Seconds()*sp))
			}
		}
		for _, g := range rq.gaps {
			gaps = append(gaps, g*sp)
		}
		// avg_active: each request adds the part of its life inside the
		// window; the sum over requests divided by D is the time-average
		// of requests in flight.
		from, to := maxTime(rq.sent, w.start), minTime(rq.ended, w.end)
		if to.After(from) {
			active += to.Sub(from).Seconds() * sp
		}
		if rq.err != nil {
			errs = append(errs, rq.err)
		}
	}

	c.MeasuredS = round(measured.Seconds()*sp, 3)
	c.OutputTokens = usage
	c.TokenCountSource = source
	// A content chunk carries at least one token and may carry several (a
	// server behind a slow reader sends what it has in one chunk), so fewer
	// chunks than usage tokens is normal; more chunks than tokens means the
	// server's usage undercounts (METHOD.md: Figures).
	if chunks > 0 && source != client.SourceChunks && float64(chunks-usage) > 0.01*float64(usage) {
		c.ChunkTokens, c.TokenCountMismatch = chunks, true
	}
	c.TotalTokS = round(float64(usage)/d, 1)
	c.PerRequestTokS = round(Median(perReq), 1)
	c.TTFTMs = round(Median(ttft), 1)
	c.TTFTP90Ms = round(Quantile(ttft, 0.9), 1)
	c.TTFTP99Ms = round(Quantile(ttft, 0.99), 1)
	c.TBTMs = round(Median(gaps), 2)
	c.TBTP90Ms = round(Quantile(gaps, 0.9), 2)
	c.TBTP99Ms = round(Quantile(gaps, 0.99), 2)
	c.AvgActive = round(active/d, 2)
	c.CompletedRequests = completed
	c.ServerSamples = samples
	c.ServerStats = summarize(samples)
	if len(gpu) > 0 {
		c.GPUSamples = gpu
		c.GPUStats = hardware.Summarize(gpu)
		if c.GPUStats != nil {
			c.EnergyJPerToken = round(hardware.EnergyPerToken(c.GPUStats.PowerMeanW, d, usage), 4)
		}
	}

	var tl *client.PromptTooLongError
	switch {
	case cancelled:
		c.Status, c.Reason = rundoc.StatusCancelled, "the run was cancelled during this cell; figures cover the part measured"
	case len(errs) > 0 && errors.As(errs[0], &tl):
		c.Status, c.Reason = rundoc.StatusExceedsLength, "the server rejected the prompt as too long: "+tl.Message
	case len(errs) > 0:
		c.Status = rundoc.StatusFailed
		c.Reason = fmt.Sprintf("%d of %d requests failed: %v", len(errs), len(reqs), errs[0])
	case usage == 0:
		c.Status, c.Reason = rundoc.StatusOverCapacity, "the server produced no output in the window"
	case c.AvgActive < 0.95*n:
		c.Status = rundoc.StatusQueued
		c.Reason = fmt.Sprintf("on average %.2f of %d requests were in flight", c.AvgActive, c.Concurrency)
	case sustainedWaiting(samples):
		c.Status = rundoc.StatusQueued
		c.Reason = fmt.Sprintf("the server reported up to %.0f waiting requests", c.ServerStats.WaitingMax)
	default:
		c.Status = rundoc.StatusValid
	}
	// A window not much longer than one time-to-first-token measures
	// mostly waiting: every stream starts at the window's opening and waits
	// a TTFT for its first token, so the rate reads far below what the card
	// sustains. The figures stand (METHOD.md), but
	// the cell says so, since a short window is a plan choice to revisit.
	if c.Status.Ran() && c.Status != rundoc.StatusCancelled && c.TTFTMs > 0 && c.TTFTMs > shortWindowShare*d*1000 {
		note := fmt.Sprintf("TTFT %s is %.0f%% of the %s window, so this rate is mostly waiting for first tokens: use a longer window",
			fmtSeconds(c.TTFTMs/1000), 100*c.TTFTMs/(d*1000), fmtSeconds(d))
		c.Reason = strings.TrimPrefix(c.Reason+"; "+note, "; ")
	}
}

// shortWindowShare is the part of the window a median TTFT may take before
// the cell notes that its rate is mostly waiting. In the published RTX 3060
// run with 30 s windows the largest share is 39% (16K × 16), so a default
// plan on such a card gets no note.
const shortWindowShare = 0.5

// fmtSeconds writes a duration in seconds as "4.8 s" or "30 s".
func fmtSeconds(s float64) string {
	if s >= 10 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// sustainedWaiting reports whether the server held requests waiting in two
// consecutive in-window samples (or in the only one). In a closed loop each
// finished request is re-sent at once and waits for the next scheduler step
// (milliseconds), so a lone sample can catch a request merely arriving; a
// queue caused by capacity persists from one sample to the next.
func sustainedWaiting(s []rundoc.ServerSample) bool {
	in := inWindow(s)
	if len(in) == 1 {
		return in[0].Waiting > 0
	}
	for i := 1; i < len(in); i++ {
		if in[i-1].Waiting > 0 && in[i].Waiting > 0 {
			return true
		}
	}
	return false
}

// inWindow returns the samples taken after the window opened (T > 0).
func inWindow(s []rundoc.ServerSample) []rundoc.ServerSample {
	var in []rundoc.ServerSample
	for _, x := range s {
		if x.T > 0 {
			in = append(in, x)
		}
	}
	return in
}

// weaker returns the less exact of two token count sources; a request
// that carried no chunks says nothing about the source.
func weaker(a, b string, counts bool) string {
	if !counts || b == "" {
		return a
	}
	rank := map[string]int{client.SourceContinuousUsage: 0, client.SourceFinalUsage: 1, client.SourceChunks: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// summarize reduces a window's /metrics samples; nil without samples.
// Counters are cumulative, so hit rate and preemptions are differences
// between the last and the first sample.
func summarize(s []rundoc.ServerSample) *rundoc.ServerStats {
	if len(s) == 0 {
		return nil
	}
	// Gauges describe the window, so the baseline taken before it (T ≤ 0,
	// with nothing running yet) is left out of their means and maxima.
	in := inWindow(s)
	if len(in) == 0 {
		in = s
	}
	st := &rundoc.ServerStats{Samples: len(in)}
	for _, x := range in {
		st.RunningMean += x.Running
		st.KVUsageMean += x.KVUsage
		st.WaitingMax = math.Max(st.WaitingMax, x.Waiting)
		st.KVUsageMax = math.Max(st.KVUsageMax, x.KVUsage)
	}
	st.RunningMean = round(st.RunningMean/float64(len(in)), 2)
	st.KVUsageMean = round(st.KVUsageMean/float64(len(in)), 4)
	first, last := s[0], s[len(s)-1]
	if dq := last.PrefixCacheQueries - first.PrefixCacheQueries; dq > 0 {
		st.PrefixHitRate = round((last.PrefixCacheHits-first.PrefixCacheHits)/dq, 4)
	}
	st.Preemptions = last.Preemptions - first.Preemptions
	return st
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
