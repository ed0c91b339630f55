package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// IdleWaitLimit bounds, in the card's time, the wait before a cell for the
// server to finish what the previous cell left (METHOD.md: Order and time).
const IdleWaitLimit = 60 * time.Second

// idlePoll is how often the wait asks /metrics.
const idlePoll = 20 * time.Millisecond

// waitIdle waits until the server reports nothing running or waiting
// (vLLM's num_requests_running/waiting, llama-server's
// requests_processing/deferred, SGLang's num_running_reqs/num_queue_reqs),
// at most IdleWaitLimit of card time (and at least a real second), and
// returns the card seconds it waited with a note when it gave up. A window
// that closes cancels its requests, but a server may run what it had queued
// before it notices (llama-server does, until a request's first token), and
// the next cell's prompts would land behind that work. A server that does
// not report its queue is not waited for, and one whose /metrics fails to
// connect is asked once whether it is gone (gone.go): then the wait ends at
// once with r.gone set, instead of after the limit.
func (r *Runner) waitIdle(ctx context.Context, run *rundoc.Run) (float64, string) {
	if !run.Server.HasMetrics || !run.Server.Reports(rundoc.NotReportedQueue) {
		return 0, ""
	}
	speed := run.Plan.Speed()
	limit := max(scaleDown(IdleWaitLimit, speed), time.Second)
	start := time.Now()
	var m client.Metrics
	asked := false
	for {
		var err error
		m, err = r.Client.Metrics(ctx)
		waited := time.Since(start)
		if err == nil && m.Running == 0 && m.Waiting == 0 {
			return round(waited.Seconds()*speed, 3), ""
		}
		if err != nil && !asked && connectionFailure(err) {
			asked = true
			if ev := r.serverGone(ctx); ev != nil {
				r.gone = &goneMark{evidence: ev, where: "before the warm-up"}
				return round(time.Since(start).Seconds()*speed, 3), ""
			}
		}
		if ctx.Err() != nil || waited >= limit {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(idlePoll):
		}
	}
	waited := round(time.Since(start).Seconds()*speed, 3)
	if ctx.Err() != nil {
		return waited, ""
	}
	return waited, fmt.Sprintf("the server still had %.0f running and %.0f waiting requests after %s; measured anyway",
		m.Running, m.Waiting, fmtSeconds(waited))
}

// addNote appends a note to a cell's reason.
func addNote(c *rundoc.Cell, note string) {
	if note != "" {
		c.Reason = strings.TrimPrefix(c.Reason+"; "+note, "; ")
	}
}

// overCapacity finds a server's "KV cache full" among errors.
func overCapacity(errs []error) *client.OverCapacityError {
	for _, err := range errs {
		var oc *client.OverCapacityError
		if errors.As(err, &oc) {
			return oc
		}
	}
	return nil
}

// countNeverStarted counts the requests that got no first token before the
// window closed although they had waited at least half of it: in a queued
// cell they waited behind the others, while a request re-sent shortly
// before the close is not one (METHOD.md: Figures).
func countNeverStarted(t *tally) int {
	n := 0
	for _, w := range t.waits {
		if w >= ms(t.end)/2 {
			n++
		}
	}
	return n
}

// ttftWithCensored is the TTFT sample with the never-started requests as
// +Inf (their TTFT is over the window): a quantile that falls on them is
// "> window" and left absent.
func ttftWithCensored(t *tally, never int) []float64 {
	all := append(append([]float64(nil), t.ttft...), make([]float64, never)...)
	for i := len(t.ttft); i < len(all); i++ {
		all[i] = math.Inf(1)
	}
	sort.Float64s(all)
	return all
}

// finite rounds v, or 0 (absent) when it is infinite.
func finite(v float64, digits int) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return round(v, digits)
}

// counters is one reading of the server's cumulative counters.
type counters struct {
	output, prompt, decodeS, prefillS float64
	hasDecode, hasPrefill, hasPrompt  bool
	// spec is the drafting counters, nil on a server without them.
	spec *specReading
}

// readCounters scrapes the server's token counters; nil when the server
// has none (no /metrics or no generated-token counter).
func (r *Runner) readCounters(ctx context.Context, run *rundoc.Run) *counters {
	if !run.Server.HasMetrics || !run.Server.Reports(rundoc.NotReportedServerTokens) {
		return nil
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	m, err := r.Client.Metrics(sctx)
	if err != nil || !m.HasGenerationTokens {
		return nil
	}
	return &counters{output: m.GenerationTokens, prompt: m.PromptTokens, decodeS: m.DecodeSeconds, hasDecode: m.HasDecodeSeconds,
		prefillS: m.PrefillSeconds, hasPrefill: m.HasPrefillSeconds, hasPrompt: m.HasPromptTokens, spec: readSpec(m)}
}

// PrefillCheckTolerancePct is the difference between RigBench's prompt
// tok/s and the server's own above which a prefill cell gets a note.
const PrefillCheckTolerancePct = 5

// prefillCheck sets a prefill cell's cross-check against the server's own
// counters read before its first request and after its last (METHOD.md:
// Cross-check): the prompt tokens the server computed, the time it spent
// computing them, and its own prompt rate, with a note where RigBench's
// figure differs by more than PrefillCheckTolerancePct. RigBench's figure
// is prompt tokens / TTFT, so the difference is what HTTP, tokenization,
// queueing and the first token's sampling add to the server's compute.
func prefillCheck(c *rundoc.Cell, before, after *counters) {
	if before == nil || after == nil || !after.hasPrefill || !after.hasPrompt {
		return
	}
	dp, ds := after.prompt-before.prompt, after.prefillS-before.prefillS
	if dp <= 0 || dp > math.MaxInt32 || !(ds > 0 && ds < 1e12) {
		return // a counter that did not move or went backwards checks nothing
	}
	c.ServerPromptTokens = int(math.Round(dp))
	c.ServerPrefillS = round(ds, 4)
	c.ServerPromptTokS = round(dp/ds, 1)
	if c.PromptTokS <= 0 {
		return
	}
	if d := 100 * (c.PromptTokS - c.ServerPromptTokS) / c.ServerPromptTokS; math.Abs(d) > PrefillCheckTolerancePct {
		addNote(c, fmt.Sprintf("the server computed these prompts at %.1f tok/s, RigBench measured %.1f (%+.1f%%): the rest is HTTP, tokenization and the first token",
			c.ServerPromptTokS, c.PromptTokS, d))
	}
}

// crossCheck compares RigBench's token count of the window with the delta
// of the server's own counter from before the window to after its last
// request ended (METHOD.md: Cross-check). vLLM and SGLang count a token
// when they generate it, so RigBench counts every token its requests
// received, inside the window or after it until they were cancelled (a
// finished request by its usage);
// llama-server counts a request's tokens when it finishes (a cancelled one
// never), so RigBench counts the usage of its finished requests. A
// difference above ServerCheckTolerancePct gets a note on the cell; one
// beyond rundoc.UnreliableCounterPct makes it Unreliable (judge).
func (w *window) crossCheck(before, after *counters, reqs []request) {
	if before == nil || after == nil {
		return
	}
	c := w.cell
	atFinish := w.run.Server.Personality == string(client.PersonalityLlama)
	ours, cut := 0, 0
	for _, rq := range reqs {
		got := 0
		for _, ch := range rq.chunks {
			got += ch.tokens
		}
		switch {
		case rq.done:
			ours += rq.usageTokens // the whole request, by its usage
		case !atFinish:
			ours += got // what arrived before it was cancelled
		case got >= w.maxOutput:
			// All its tokens arrived but the close cut it before its last
			// chunk: the server finished it, and counted it.
			ours += got
		case got > 0:
			cut++ // cancelled by the close part-way: counted by the server only if it finished first
		}
	}
	server := after.output - before.output
	if extra := server - float64(ours); atFinish && cut > 0 && extra > 0 && w.maxOutput > 0 {
		// A request the close cancelled may still finish on the server
		// before the cancel reaches it (on a loaded client, a few tokens
		// late): llama-server then counts all its max_output tokens. A
		// surplus of exactly k × max_output, k no more than the requests
		// cut, is those requests (a 1-stream cell read +25%, 1,280 against
		// 1,024, where one of five requests straddled the close).
		if k := math.Round(extra / float64(w.maxOutput)); k >= 1 && int(k) <= cut && math.Abs(extra-k*float64(w.maxOutput)) < 0.5 {
			ours += int(k) * w.maxOutput
		}
	}
	if !(server >= 0 && server <= math.MaxInt32) { // NaN fails both
		// A counter that went backwards (the server restarted) or beyond
		// any real value checks nothing.
		addNote(c, "the server's generated-token counter went backwards or out of range during the window; no cross-check")
		return
	}
	c.ServerOutputTokens, c.CheckedOutputTokens = int(math.Round(server)), ours
	if dp := after.prompt - before.prompt; dp >= 0 && dp <= math.MaxInt32 {
		c.ServerPromptTokens = int(math.Round(dp))
	}
	if after.hasDecode {
		if ds := after.decodeS - before.decodeS; ds > 0 && ds < 1e12 {
			c.ServerDecodeS = round(ds, 3)
			c.ServerDecodeTokS = round(server/ds, 1)
		}
	}
	diff := 0.0
	if ours > 0 {
		diff = round(min(100*(server-float64(ours))/float64(ours), 1e9), 2)
		c.ServerTokenDiffPct = &diff
	}
	if _, unreliable := counterContradicts(c); unreliable {
		return // judge words it, as the reason the cell is Unreliable
	}
	if ours > 0 && math.Abs(diff) > rundoc.ServerCheckTolerancePct || ours == 0 && server > 0 {
		addNote(c, fmt.Sprintf("server counted %s generated tokens, RigBench %s (%+.1f%%)",
			commas(c.ServerOutputTokens), commas(ours), diff))
	}
}

// commas writes n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
