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

// tally accumulates the requests of a decode window, cut to the window's
// end (vegeta's Metrics.Add): counts, sums and the samples the medians are
// taken from. Every time is in the card's time already (cardClock), so no
// speed factor appears here.
type tally struct {
	end time.Duration // the window closed here (card offset)
	ref time.Duration // the figure is as a window this long reads it
	// firstToken is each stream's first token (card offset), -1 before it.
	firstToken []time.Duration

	requests, usage, chunks, completed int
	// ttft (ms), gaps between content chunks (ms per token), perReq
	// (tok/s) and itl (ms per token, one per request).
	ttft, gaps, perReq, itl []float64
	bins                    []float64 // tokens per binWidth of card time
	active                  float64   // card seconds of requests in flight
	errs                    []error
	source                  string

	// maxOutput is M: a request ended by length short of it hit the
	// server's context limit (endedByLength).
	maxOutput, retries, endedByLength int
	// missingDone counts requests whose stream finished without [DONE].
	missingDone int
	// inflated is true when the usage counts more than maxTokensPerChunk
	// tokens per content chunk (derive).
	inflated bool
	// capacity is what the server's gauges said of its KV cache when the
	// streams went silent (window.checkStall), "" when nothing.
	capacity string
	// backwards counts the chunks whose cumulative usage fell, and
	// backwardsReqs the requests that had one (judge).
	backwards, backwardsReqs int
	// restarts counts requests sent inside the window: streams that
	// finished M tokens and sent again (judge's ± bound).
	restarts int
	// waits are the card ms that requests without a first token had waited
	// when the window closed (countNeverStarted).
	waits []float64
	// cutSource is the weakest source among requests cut at the close; it
	// stands only when no request ended (item 8 of issue 18).
	cutSource string
	anyDone   bool

	// spans are the requests' spans for the per-request figures at the
	// reference close (perRequestAtRef); perRef is that close, 0 for none
	// (a cancelled window: its figures are over the part measured), and
	// refPerReq, refITL, with refCut, the figures of a window longer than
	// perRef cut there (closeAt).
	spans             []streamSpan
	perRef            time.Duration
	refPerReq, refITL []float64
	refCut            bool
}

// streamSpan is what the per-request figures of one request rest on: its
// stream, its first token and its last before the close, the tokens
// between (ITL = (last − first) / (tokens − 1)), whether it was still
// streaming at the close (cut), and its steady rate in the window (tok/s,
// 0 when too short to tell) over rateSpan of card time.
type streamSpan struct {
	stream      int
	first, last time.Duration
	tokens      int
	cut         bool
	rate        float64
	rateSpan    time.Duration
}

// newTally starts the tally of a window of streams streams that closed at
// end, whose figures read as a window of length ref would.
func newTally(end, ref time.Duration, streams int) *tally {
	t := &tally{end: end, ref: ref, source: client.SourceContinuousUsage,
		bins: make([]float64, end/binWidth), firstToken: make([]time.Duration, streams)}
	for i := range t.firstToken {
		t.firstToken[i] = -1
	}
	return t
}

// add counts one request: its chunks before the window's end, its TTFT,
// per-request rate and inter-token latency, and the part of its life
// inside the window. Offsets count from the window's opening, so a request
// of the ramp has chunks before 0: they count for its per-request figures
// (its whole stream, as the seed tool's do) but not for total tok/s.
func (t *tally) add(rq *request) {
	t.requests++
	var (
		tokens, inWindow, chunks int
		first, last, prev        time.Duration
		seen, prevIn             bool
		// The steady rate of a request cut at the close is measured from
		// its first token inside the window, so the ramp does not weigh in
		// it (nor a step that straddles the opening).
		anchor      time.Duration
		afterAnchor int
		anchored    bool
	)
	for _, ch := range rq.chunks {
		if ch.at >= t.end {
			break // chunks arrive in order: the rest are later still
		}
		in := ch.at >= 0
		if in {
			chunks++
		}
		if ch.tokens == 0 {
			continue // text without tokens: counted only as a chunk
		}
		if k := int(ch.at / binWidth); in && k < len(t.bins) {
			t.bins[k] += float64(ch.tokens)
		}
		if f := &t.firstToken[rq.stream]; *f < 0 || max(ch.at, 0) < *f {
			*f = max(ch.at, 0)
		}
		if seen {
			if in && prevIn {
				t.gaps = append(t.gaps, ms(ch.at-prev)/float64(ch.tokens))
			}
		} else {
			first, seen = ch.at, true
		}
		prev, last, prevIn = ch.at, ch.at, in
		tokens += ch.tokens
		if in {
			inWindow += ch.tokens
		}
		if in && !anchored {
			anchor, anchored = ch.at, true
		} else if in {
			afterAnchor += ch.tokens
		}
	}
	if rq.hasFirstText && rq.firstText < t.end {
		first, seen = rq.firstText, true // TTFT counts to the first chunk with text
	}
	finished := rq.done && rq.ended < t.end
	// Tokens inside the window. Continuous usage gives them per chunk; a
	// server with a final usage chunk only gives the exact total for
	// requests that ran wholly inside the window.
	counted := inWindow
	if rq.source == client.SourceFinalUsage && finished && rq.sent >= 0 {
		counted = rq.usageTokens
	}
	// A request cut at the close lacks the final usage only because it was
	// cut, so it does not weaken the cell's source.
	if rq.done {
		t.source, t.anyDone = weaker(t.source, rq.source, len(rq.chunks) > 0), true
	} else {
		t.cutSource = weaker(t.cutSource, rq.source, len(rq.chunks) > 0)
	}
	t.retries += rq.retries
	if rq.missingDone {
		t.missingDone++
	}
	if rq.sent >= 0 && rq.sent < t.end {
		t.restarts++
	}
	if rq.usageBackwards > 0 {
		t.backwards += rq.usageBackwards
		t.backwardsReqs++
	}
	// Ended by length short of M, by a usage that is not below the chunk
	// count (a usage that undercounts is flagged apart, not taken for a
	// short stream).
	if rq.done && rq.finishLength && t.maxOutput > 0 && rq.usageTokens >= len(rq.chunks) && rq.usageTokens < t.maxOutput {
		t.endedByLength++
	}
	if !seen && rq.sent < t.end {
		t.waits = append(t.waits, ms(t.end-rq.sent))
	}
	t.usage += counted
	t.chunks += chunks
	if finished {
		t.completed++
	}
	if seen {
		t.ttft = append(t.ttft, ms(first-rq.sent))
		// The seed tool's per-request figures: ITL = (last − first) /
		// (tokens − 1) over the request's stream, and its rate 1 / ITL.
		if tokens > 1 && last > first {
			t.perReq = append(t.perReq, float64(tokens-1)/(last-first).Seconds())
			t.itl = append(t.itl, ms(last-first)/float64(tokens-1))
		}
	}
	// A request without a token at the close is left out: in a queued cell
	// it waits for a slot that a 30 s window would not free either.
	if cut := rq.err == nil && !finished && seen && tokens > 0; cut || (seen && tokens > 1 && last > first) {
		sp := streamSpan{stream: rq.stream, first: first, last: last, tokens: tokens, cut: cut}
		if span := last - anchor; anchored && span >= minRateSpan && afterAnchor > 0 {
			sp.rate, sp.rateSpan = float64(afterAnchor)/span.Seconds(), span
		}
		t.spans = append(t.spans, sp)
	}
	// avg_active: each request adds the part of its life inside the
	// window; the sum over requests divided by D is the time-average of
	// requests in flight. On llama-server deriveServer takes out those its
	// waiting gauge held back (METHOD.md: Figures).
	if from, to := max(rq.sent, 0), min(rq.ended, t.end); to > from {
		t.active += (to - from).Seconds()
	}
	if rq.err != nil {
		t.errs = append(t.errs, rq.err)
	}
}

// derive sets a decode cell's figures from a closed tally over a window of
// d seconds of card time (METHOD.md: Decode cells, step 4).
func derive(c *rundoc.Cell, t *tally, d float64) {
	c.OutputTokens = t.usage
	if !t.anyDone && t.cutSource != "" {
		t.source = t.cutSource
	}
	c.TokenCountSource = t.source
	c.RetriedRequests, c.EndedByLength = t.retries, t.endedByLength
	c.NeverStarted = countNeverStarted(t)
	// A content chunk carries at least one token and may carry several (a
	// server behind a slow reader sends what it has in one chunk), so fewer
	// chunks than usage tokens is normal; more chunks than tokens means the
	// server's usage undercounts (METHOD.md: Figures).
	if t.chunks > 0 && t.source != client.SourceChunks && float64(t.chunks-t.usage) > 0.01*float64(t.usage) {
		c.ChunkTokens, c.TokenCountMismatch = t.chunks, true
	}
	if t.chunks > 0 && t.source != client.SourceChunks && t.usage > maxTokensPerChunk*t.chunks {
		c.ChunkTokens, c.TokenCountMismatch, t.inflated = t.chunks, true, true
	}
	c.TotalTokS, c.TotalTokSCI95 = t.total(d)
	perReq, itl, projected := t.perRequestAtRef()
	if projected {
		c.PerRequestTokSWindow = round(Median(t.perReq), 1)
		c.TBTMsWindow = round(Median(t.itl), 2)
	}
	c.PerRequestTokS = round(Median(perReq), 1)
	// Requests that never started have a TTFT over the window (+Inf): a
	// quantile that falls on them is absent, shown as "> window".
	ttft := ttftWithCensored(t, c.NeverStarted)
	c.TTFTMs = finite(Median(ttft), 1)
	c.TTFTP90Ms = finite(Quantile(ttft, 0.9), 1)
	c.TTFTP99Ms = finite(Quantile(ttft, 0.99), 1)
	c.TBTMs = round(Median(itl), 2)
	c.TBTP90Ms = round(Quantile(itl, 0.9), 2)
	c.TBTP99Ms = round(Quantile(itl, 0.99), 2)
	c.ChunkGapMs = round(Median(t.gaps), 2)
	c.AvgActive = round(t.active/d, 2)
	c.CompletedRequests = t.completed
	c.PerRequestTokSCI95 = round(bootstrapMedianCI(perReq), 2)
	c.TTFTMsCI95 = round(bootstrapMedianCI(t.ttft), 2)
	c.TBTMsCI95 = round(bootstrapMedianCI(itl), 3)
}

// minRateSpan is the shortest stretch of a request's stream inside the
// window whose tokens give its steady rate (perRequestAtRef): a few steps
// of any card.
const minRateSpan = 500 * time.Millisecond

// maxProjected bounds the requests perRequestAtRef adds for streams that
// would have restarted before the reference close (tiny M on a fast card).
const maxProjected = 10000

// closeAt sets the reference close of the per-request figures
// (perRequestAtRef) to ref; a window longer than ref is cut there, from
// the window's requests reqs of streams streams.
func (t *tally) closeAt(ref time.Duration, reqs []request, streams int) {
	t.perRef = ref
	if t.end > ref {
		cut := newTally(ref, ref, streams)
		for i := range reqs {
			cut.add(&reqs[i])
		}
		t.refPerReq, t.refITL, t.refCut = cut.perReq, cut.itl, true
	}
}

// perRequestAtRef returns the per-request rates (tok/s) and ITLs (ms) of
// the seed tool's definition as a window closing at perRef reads them, and
// whether they differ in kind from the window's own (t.perReq, t.itl): a
// window that closed at perRef gives its own figures, one longer was cut
// there (refCut), and one shorter is projected (METHOD.md: Decode cells,
// step 4). Each request that was still streaming at the close goes on at
// its steady rate r (its tokens in the window after its first one there,
// over their time; if that is under minRateSpan, the stream's rate from
// the request of it measured longest; else the median of the cell's): by
// the later close it has k = r·(perRef − end) more tokens and its last one
// is perRef − end later, so
//
//	ITL' = (last + (perRef − end) − first) / (tokens + k − 1).
//
// A request that reaches M tokens first ends there (after (M − tokens) / r
// more), and its stream restarts: each later request of the stream streams
// at r, so it adds one rate r (ITL 1/r) for every M / r seconds left, and
// one for a last request that has at least 2 tokens by the close. Requests
// that ended before the close keep their figures. At perRef = end this is
// the window's own figure exactly.
func (t *tally) perRequestAtRef() (perReq, itl []float64, projected bool) {
	switch {
	case t.refCut:
		return t.refPerReq, t.refITL, true
	case t.perRef <= t.end:
		return t.perReq, t.itl, false
	}
	// Each stream's steady rate: that of its request measured longest.
	var known []float64
	best := map[int]streamSpan{}
	for _, sp := range t.spans {
		if sp.rate > 0 {
			known = append(known, sp.rate)
			if b, ok := best[sp.stream]; !ok || sp.rateSpan > b.rateSpan {
				best[sp.stream] = sp
			}
		}
	}
	fallback := Median(known)
	ext := t.perRef - t.end
	emit := func(tokens float64, first, last time.Duration) {
		if tokens > 1 && last > first {
			perReq = append(perReq, (tokens-1)/(last-first).Seconds())
			itl = append(itl, ms(last-first)/(tokens-1))
		}
	}
	added := 0
	for _, sp := range t.spans {
		r := sp.rate
		if b, ok := best[sp.stream]; r <= 0 && ok {
			r = b.rate
		}
		if r <= 0 {
			r = fallback
		}
		if !sp.cut || r <= 0 {
			emit(float64(sp.tokens), sp.first, sp.last)
			continue
		}
		first, last, tokens := sp.first, sp.last, float64(sp.tokens)
		k := r * ext.Seconds()
		m := float64(t.maxOutput)
		if t.maxOutput <= 0 || tokens+k < m {
			emit(tokens+k, first, last+ext)
			continue
		}
		done := last + time.Duration(max(m-tokens, 0)/r*float64(time.Second))
		emit(m, first, done)
		left := (t.perRef - done).Seconds()
		n := math.Floor(left / (m / r))
		if left-n*m/r >= 2/r {
			n++
		}
		for ; n > 0 && added < maxProjected; n-- {
			perReq, itl = append(perReq, r), append(itl, 1000/r)
			added++
		}
	}
	return perReq, itl, true
}

// maxTokensPerChunk is the most output tokens one content chunk may carry
// before the server's usage is taken as inflated (issue 23 item 10). A
// chunk carries several tokens when the server sends what it has to a slow
// reader, or drafts several with speculative decoding (a handful); 64 is
// far beyond both, and a usage 1000× the chunks is not a stream.
const maxTokensPerChunk = 64

// settle is when the last stream got its first token, and whether all did.
func (t *tally) settle() (time.Duration, bool) {
	var last time.Duration
	for _, f := range t.firstToken {
		if f < 0 {
			return 0, false
		}
		last = max(last, f)
	}
	return last, len(t.firstToken) > 0
}

// total is total tok/s and its 95% half-width (estimateRate). A window that
// lasted its reference length counts usage tokens / D exactly, as windows
// always have; a shorter (adaptive) one scales the estimate from the bins
// to usage tokens, which differ only for servers that report usage last.
func (t *tally) total(d float64) (rate, half float64) {
	settle, settled := t.settle()
	est := estimateRate(t.bins, settle, settled, t.ref)
	var binned float64
	for _, x := range t.bins {
		binned += x
	}
	rate = float64(t.usage) / d
	if t.end < t.ref && binned > 0 {
		rate = est.rate * float64(t.usage) / binned
	}
	if est.half > 0 && est.rate > 0 {
		half = rate * est.half / est.rate
	}
	if est.known && rate > 0 {
		// A half-width below the figure's last digit of ± (0.005) reads
		// as that digit, 0.01, not as 0, which the run document keeps for
		// "not known": a Valid figure always carries its ±.
		return round(rate, 1), max(round(half, 2), minHalf)
	}
	return round(rate, 1), round(half, 2)
}

// minHalf is the smallest ± a figure of total tok/s shows: its resolution.
const minHalf = 0.01

// deriveServer sets the figures of the server's and the GPUs' samples. On
// llama-server avg_active counts only the requests in flight that held a
// slot: the client's count less the time-average of the server's waiting
// gauge (requests_deferred) over the window (METHOD.md: Figures). It sends a
// waiting request nothing until a slot frees, so the client cannot tell it
// from a running one: 8 streams on 4 slots read 8.0 (issue 30 item 7). The
// running gauge alone would not do: a stream that restarts leaves its slot
// free for a moment, which the gauge sees and the client's count does not.
//
// The waiting gauge is a point sample, the client's count a time-average, so
// a sample that lands while a stream is between two requests (the client
// holds 7 of 8 open, and the server 3 waiting, not 4) would weigh that dip
// by the sampling interval, not by its length. Each sample is therefore
// paired with the client's open requests at that moment, inFlight[i]: the
// slots in use then are inFlight[i] − waiting[i] whether or not a stream was
// between requests, and the time-average of waiting is estimated as
//
//	held = client avg_active − mean_i(inFlight[i] − waiting[i])
//
// (the sample mean of waiting corrected by how far the client's count at
// the samples strayed from its time-average: a control variate with
// coefficient 1, since a queued request takes a freed slot one for one).
// Under load (stress-ng beside the run) the restarts last longer and the
// plain mean of waiting read 3.5 for 8 streams on 4 slots.
func deriveServer(c *rundoc.Cell, s rundoc.Server, samples []rundoc.ServerSample, inFlight []float64, gpu []hardware.GPUSample, d float64) {
	c.ServerSamples = samples
	c.ServerStats = summarize(samples)
	if s.Personality == string(client.PersonalityLlama) && s.Reports(rundoc.NotReportedQueue) {
		var held float64
		n := 0
		for i, x := range samples {
			if x.T <= 0 {
				continue // before the window: the baseline
			}
			slotsInUse := c.AvgActive - x.Waiting // unpaired: the client's mean
			if i < len(inFlight) && !math.IsNaN(inFlight[i]) {
				slotsInUse = inFlight[i] - x.Waiting
			}
			held += c.AvgActive - slotsInUse
			n++
		}
		if n > 0 {
			held = max(0, held/float64(n))
			if s.Slots > 0 {
				// Only the streams beyond the slots wait for one: with N ≤
				// slots a sample that catches a restarting stream deferred
				// for a moment is not a queue (on a loaded machine one
				// sample in four of 1K×2 on 4 slots read 1 waiting, and the
				// cell read queued at 1.75 of 2).
				held = min(held, float64(max(0, c.Concurrency-s.Slots)))
			}
			active := max(0, c.AvgActive-held)
			if s.Slots > 0 {
				// The server runs at most its slots at once: an estimate
				// above them is the samples' noise (under stress-ng and the
				// race detector 8 streams on 4 slots read 4.50).
				active = min(active, float64(s.Slots))
			}
			c.AvgActive = round(active, 2)
		}
	}
	if len(gpu) > 0 {
		c.GPUSamples = gpu
		c.GPUStats = hardware.Summarize(gpu)
		if st := c.GPUStats; st != nil {
			// The energy counter's draw where every GPU has one, else the
			// sampled power (hardware.Summarize): J = W × window s.
			c.EnergyJPerToken = round(hardware.EnergyPerToken(st.EnergyMeanW, d, c.OutputTokens), 4)
			for i := range st.PerGPU {
				st.PerGPU[i].EnergyJPerToken = round(hardware.EnergyPerToken(st.PerGPU[i].EnergyMeanW, d, c.OutputTokens), 4)
			}
		}
	}
}

// classify sets a decode cell's status from its derived figures (METHOD.md:
// Decode cells, step 5), then notes a window mostly spent waiting.
func classify(c *rundoc.Cell, t *tally, cancelled bool, d float64) {
	var tl *client.PromptTooLongError
	switch {
	case cancelled:
		c.Status, c.Reason = rundoc.StatusCancelled, "the run was cancelled during this cell; figures cover the part measured"
	case len(t.errs) > 0 && errors.As(t.errs[0], &tl):
		c.Status, c.Reason = rundoc.StatusExceedsLength, "the server rejected the prompt as too long: "+tl.Message
	case overCapacity(t.errs) != nil:
		c.Status, c.Reason = rundoc.StatusOverCapacity, "the server ran out of KV cache during the window: "+overCapacity(t.errs).Message
	case len(t.errs) > 0:
		c.Status = rundoc.StatusFailed
		c.Reason = fmt.Sprintf("%d of %d requests failed: %v", len(t.errs), t.requests, t.errs[0])
	case t.usage == 0 && t.backwards == 0:
		c.Status, c.Reason = noOutput(c, t.capacity)
	case t.endedByLength > 0:
		c.Status = rundoc.StatusExceedsLength
		c.Reason = fmt.Sprintf("%d request(s) ended by length before %d tokens: prompt + output reach the server's context limit, so the streams were shorter than planned",
			t.endedByLength, t.maxOutput)
	case c.AvgActive < 0.95*float64(c.Concurrency):
		c.Status = rundoc.StatusQueued
		c.Reason = fmt.Sprintf("on average %.2f of %d requests were in flight", c.AvgActive, c.Concurrency)
	case sustainedWaiting(c.ServerSamples):
		c.Status = rundoc.StatusQueued
		c.Reason = fmt.Sprintf("the server reported up to %.0f waiting requests", c.ServerStats.WaitingMax)
	default:
		c.Status = rundoc.StatusValid
	}
	if c.NeverStarted > 0 && c.Status != rundoc.StatusCancelled {
		addNote(c, fmt.Sprintf("%d of %d requests got no first token within the window (TTFT > window)", c.NeverStarted, t.requests))
	}
	if t.missingDone > 0 {
		addNote(c, fmt.Sprintf("%d request(s) finished without the stream's closing [DONE]; each was ended after a short grace", t.missingDone))
	}
	if c.RetriedRequests > 0 {
		addNote(c, fmt.Sprintf("%d request(s) sent again after the server closed an idle connection", c.RetriedRequests))
	}
}

// classifySlots makes a cell that ran Valid Requests queued when it has
// more requests than the server runs at once (Limits.Queued): the rest
// waited for a slot by construction, whatever the window's averages say.
func classifySlots(c *rundoc.Cell, l Limits) {
	if !l.Queued(c.Concurrency) || !c.Status.Ran() {
		return
	}
	why := fmt.Sprintf("the server runs %d requests at once (its slots or max_num_seqs), fewer than the cell's %d", l.Slots, c.Concurrency)
	if c.Status == rundoc.StatusValid {
		c.Status, c.Reason = rundoc.StatusQueued, why
		return
	}
	c.Reason = strings.TrimSuffix(why+"; "+c.Reason, "; ") // the cause first, then what the window saw
}

// fmtSeconds words a duration held in seconds, as every duration is
// worded (rundoc.ShortDuration): "4.8 s", "30 s", "2 min 05 s".
func fmtSeconds(s float64) string {
	return rundoc.ShortDuration(time.Duration(s * float64(time.Second)))
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
		st.KVUsageMean += rundoc.Value(x.KVUsage)
		st.WaitingMax = math.Max(st.WaitingMax, x.Waiting)
		st.KVUsageMax = math.Max(st.KVUsageMax, rundoc.Value(x.KVUsage))
	}
	st.RunningMean = round(st.RunningMean/float64(len(in)), 2)
	st.KVUsageMean = round(st.KVUsageMean/float64(len(in)), 4)
	first, last := s[0], s[len(s)-1]
	if dq := rundoc.Value(last.PrefixCacheQueries) - rundoc.Value(first.PrefixCacheQueries); dq > 0 {
		st.PrefixHitRate = round((rundoc.Value(last.PrefixCacheHits)-rundoc.Value(first.PrefixCacheHits))/dq, 4)
	}
	st.Preemptions = rundoc.Value(last.Preemptions) - rundoc.Value(first.Preemptions)
	return st
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
