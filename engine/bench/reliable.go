package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// evidence is what a decode window saw besides its figures that can
// contradict them (judge): the tally's usage checks. A prefill cell has
// none of it (nil).
type evidence struct {
	usage, chunks int
	// inflated: usage above maxTokensPerChunk per content chunk.
	inflated bool
	// backwards chunks whose cumulative usage fell, in backwardsReqs
	// requests.
	backwards, backwardsReqs int
	// restarted: some stream finished its M tokens and sent again inside
	// the window, whose ± then says nothing of the figure's error
	// (rundoc.UnreliableCIPct).
	restarted bool
}

// evidenceOf keeps what judge needs of a closed tally.
func evidenceOf(t *tally) *evidence {
	return &evidence{usage: t.usage, chunks: t.chunks, inflated: t.inflated, backwards: t.backwards, backwardsReqs: t.backwardsReqs,
		restarted: t.restarts > 0}
}

// judge makes a cell that ran Unreliable when its own evidence contradicts
// its figure (METHOD.md: Status, Unreliable), with every contradiction
// found, each a short head for the matrices and a sentence, before the
// notes the cell already had. It runs after the cross-check, since the
// server's counter is one of the witnesses. A cell that did not run has
// no figure to contradict.
func judge(c *rundoc.Cell, ev *evidence) {
	if !c.Status.Ran() {
		return
	}
	var why []string
	add := func(head, format string, a ...any) {
		why = append(why, rundoc.UnreliableReason(head, fmt.Sprintf(format, a...)))
	}
	if ev != nil && ev.inflated {
		add(fmt.Sprintf("usage %d/chunk", ev.usage/max(ev.chunks, 1)),
			"the server's usage counts %s tokens for %s content chunks, more than %d per chunk: its usage is not to be trusted, so neither is total tok/s",
			commas(ev.usage), commas(ev.chunks), maxTokensPerChunk)
	}
	if ev != nil && ev.backwards > 0 {
		add("usage fell", "the server's usage count went down %d time(s) within %d request(s): a count that runs backwards counts nothing, so neither does total tok/s",
			ev.backwards, ev.backwardsReqs)
	}
	if d, ok := counterContradicts(c); ok {
		add("counter "+headPct(d), "the server counted %s generated tokens, RigBench %s (%s), more than %d%% apart: one count is wrong (a client that fell behind the stream, or a server whose usage is not its output)",
			commas(c.ServerOutputTokens), commas(c.CheckedOutputTokens), signedPct(d), rundoc.UnreliableCounterPct)
	}
	f, rate, half, bound := rundoc.FigTotalTokS, c.TotalTokS, c.TotalTokSCI95, rundoc.UnreliableCIPct
	if c.Phase == rundoc.PhasePrefill {
		f, rate, half, bound = rundoc.FigPromptTokS, c.PromptTokS, c.PromptTokSCI95, rundoc.UnreliablePrefillCIPct
	} else if c.WarmupTimedOut || ev != nil && ev.restarted {
		half = 0 // its ± does not measure the figure's error (rundoc.UnreliableCIPct)
	}
	if ciTooWide(rate, half, bound) {
		add(fmt.Sprintf("± %.0f%%", 100*half/rate), "%s %s ± %s: the 95%% interval is wider than %d%% of the figure, which then says little",
			f.Label, f.Format(rate), f.FormatCI(half), bound)
	}
	if clientBehind(c.ClientCPUPct) {
		add(fmt.Sprintf("client CPU %.0f%%", c.ClientCPUPct), "RigBench used %.0f%% of this machine's CPU during the window, so the client, not the server, may have set the pace: run it on another machine, or with fewer streams",
			c.ClientCPUPct)
	}
	if len(why) == 0 {
		return
	}
	c.Status = rundoc.StatusUnreliable
	c.Reason = strings.TrimSuffix(strings.Join(why, "; ")+"; "+c.Reason, "; ")
}

// counterContradicts reports the difference in percent between the
// server's generated-token counter and RigBench's count, and whether it
// is beyond rundoc.UnreliableCounterPct and more than
// rundoc.UnreliableCounterSlack tokens per stream. A RigBench count of 0
// against a server that counted more than the slack contradicts too
// (+∞: returned as 1e5, worded "+∞%").
func counterContradicts(c *rundoc.Cell) (float64, bool) {
	server, ours := c.ServerOutputTokens, c.CheckedOutputTokens
	if c.Phase != rundoc.PhaseDecode || (server == 0 && ours == 0) {
		return 0, false
	}
	slack := rundoc.UnreliableCounterSlack * max(c.Concurrency, 1)
	if server > ours && c.ClientLagS > 0 {
		// A client behind a simulator's clock (client_lag_s) had not read
		// the tokens of the window's last lag seconds when its requests
		// were cancelled, which the server had made and counted: a surplus
		// up to lag × the rate is that, not a wrong count (a starved client
		// at 100× read the counter 7–17% ahead with figures on the truth).
		slack += int(math.Ceil(c.ClientLagS * c.TotalTokS))
	}
	if abs(server-ours) <= slack {
		return 0, false
	}
	if ours == 0 {
		return 1e5, true
	}
	d := 100 * float64(server-ours) / float64(ours)
	return d, math.Abs(d) > rundoc.UnreliableCounterPct
}

// ciTooWide reports a 95% half-width over bound percent of its figure
// (none measured is not too wide).
func ciTooWide(rate, half float64, bound int) bool {
	return rate > 0 && half > float64(bound)/100*rate
}

// clientBehind reports a client CPU share at which the client may have set
// the pace (0: not measured).
func clientBehind(pct float64) bool { return pct >= rundoc.ClientBehindPct }

// signedPct writes a difference in percent with its sign, as the
// cross-check's note does: "+79.7%", "-90.0%".
func signedPct(d float64) string {
	if d >= 1e5 {
		return "+∞%"
	}
	return fmt.Sprintf("%+.1f%%", d)
}

// headPct is signedPct without decimals, for a matrix cell's head.
func headPct(d float64) string {
	if d >= 1e5 {
		return "+∞%"
	}
	return fmt.Sprintf("%+.0f%%", d)
}
