package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// DefaultFirstTokenTimeout is the least time, in the served card's time, a
// warm-up or prefill request waits for its token before its cell fails as
// stuck. It is generous on purpose: a slow card prefilling a very long
// prompt must not be mistaken for a hung server.
const DefaultFirstTokenTimeout = 10 * time.Minute

// stuckFactor is how many times the predicted prefill time a request may
// take. PrefillRate's prediction can be off: beyond the measured contexts
// it extrapolates, before any prefill cell it assumes a mid-range card, and
// a busy server prefills N warm-up prompts slower than one; five leaves
// room for all of that.
const stuckFactor = 5

// StuckError is the failure of a request that did not finish within its
// budget: the server accepted it and then said nothing (no token), or kept
// streaming a response that should have ended after a token or two; without
// a limit the run would wait for ever. Every completion request outside a
// decode window (whose end bounds its requests) has this budget: the probe
// of the server's options, prompt-length probes, prefill and warm-up.
type StuckError struct {
	// Waited is the budget that ran out, in the served card's time.
	Waited time.Duration
	// Tokens is the prompt tokens the requests had to prefill.
	Tokens int
	// Floor is true when the least wait (Runner.FirstTokenTimeout) set
	// the budget, rather than stuckFactor × the predicted prefill time.
	Floor bool
	// Streaming is true when tokens did arrive but the response never
	// ended: a server that ignores max_tokens or stalls mid-stream, not
	// one that sent nothing.
	Streaming bool
	// Over is set when the server sent more content chunks than the
	// request's max_tokens (MaxTokens): each carries at least one token,
	// so it ignores the limit, which is proof at once, not after a wait.
	Over, MaxTokens int
	// Stalled is set when the first token came but the rest of a short
	// response did not within AfterFirstToken.
	Stalled bool
}

// AfterFirstToken is how long, in the served card's time, a response of
// one or two tokens may take after its first token before the request is
// given up as stalled mid-stream. The second token is one decode step,
// milliseconds on any card, so a minute is far beyond a busy server; the
// long first-token budget exists for prefill, which is over by then, and a
// server that trickles a byte every few seconds no longer holds a run for
// ten minutes (issue 36 item 9).
const AfterFirstToken = time.Minute

func (e *StuckError) Error() string {
	if e.Over > 0 {
		return fmt.Sprintf("the server kept streaming past max_tokens: it sent %d pieces of text, each at least a token, for a request of at most %d tokens, so it ignores the limit every measurement relies on",
			e.Over, e.MaxTokens)
	}
	if e.Stalled {
		return fmt.Sprintf("the server sent a first token, then nothing that ended the response within %s; it stalled mid-stream",
			rundoc.ShortDuration(e.Waited))
	}
	why := fmt.Sprintf("%d× what the prefill rate predicts", stuckFactor)
	if e.Floor {
		why = "the least wait, far beyond what the prefill rate predicts"
	}
	if e.Streaming {
		return fmt.Sprintf("the server kept streaming without finishing a response of at most 2 tokens within %s for %d prompt tokens (%s); it ignores max_tokens or stalled mid-stream",
			rundoc.ShortDuration(e.Waited), e.Tokens, why)
	}
	return fmt.Sprintf("the server sent no token within %s for %d prompt tokens (%s); it may be stuck, swapping or out of memory",
		rundoc.ShortDuration(e.Waited), e.Tokens, why)
}

// firstTokenBudget is how long, in the served card's time, requests that
// together prefill tokens prompt tokens at a context may wait for their
// tokens: stuckFactor × tokens / PrefillRate (the rate measured so far in
// this run, else AssumedPrefillRate), and never less than FirstTokenTimeout.
func (r *Runner) firstTokenBudget(run *rundoc.Run, context, tokens int) (budget time.Duration, floor bool) {
	predicted := float64(tokens) / PrefillRate(run.Cells, context)
	scaled := time.Duration(stuckFactor * predicted * float64(time.Second))
	if r.FirstTokenTimeout >= scaled {
		return r.FirstTokenTimeout, true
	}
	return scaled, false
}

// stuckWait bounds requests that must finish soon after their first token
// (max_tokens of 1 or 2): ctx ends after the budget of firstTokenBudget.
type stuckWait struct {
	ctx    context.Context
	cancel context.CancelFunc
	parent context.Context
	stuck  *StuckError
	// real is the budget in real time: the card's time ÷ the simulator's
	// speed.
	real time.Duration
	// speed is the served card's time per real second (watch's limit).
	speed float64
	// stop ends the wait early with a cause of its own (watch).
	stop context.CancelCauseFunc
}

// untilFirstToken returns the wait for requests that prefill tokens prompt
// tokens of promptLen each. Call cancel when they are done.
func (r *Runner) untilFirstToken(ctx context.Context, run *rundoc.Run, promptLen, tokens int) *stuckWait {
	budget, floor := r.firstTokenBudget(run, promptLen, tokens)
	w := &stuckWait{parent: ctx, stuck: &StuckError{Waited: budget, Tokens: tokens, Floor: floor},
		real: scaleDown(budget, run.Plan.Speed()), speed: run.Plan.Speed()}
	tctx, tcancel := context.WithTimeoutCause(ctx, w.real, w.stuck)
	w.ctx, w.stop = context.WithCancelCause(tctx)
	w.cancel = func() { w.stop(nil); tcancel() }
	return w
}

// watch returns the token callback of one request of at most maxTokens
// tokens under this wait: a token beyond maxTokens ends the wait at once
// (the server ignores max_tokens), and a response not finished
// AfterFirstToken after its first token ends it as stalled.
func (w *stuckWait) watch(maxTokens int) client.TokenFunc {
	var (
		mu    sync.Mutex
		got   int
		timer *time.Timer
	)
	context.AfterFunc(w.ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
	})
	return func(_ time.Time, _ int) {
		mu.Lock()
		defer mu.Unlock()
		first := got == 0
		// Content chunks, not usage: each carries at least one token, and
		// a server whose usage lies (10× what it streams) must not read as
		// one that ignores max_tokens; the cell's checks judge its usage.
		got++
		if got > maxTokens {
			w.stop(&StuckError{Streaming: true, Over: got, MaxTokens: maxTokens, Tokens: w.stuck.Tokens})
			return
		}
		if first && w.ctx.Err() == nil {
			timer = time.AfterFunc(scaleDown(AfterFirstToken, w.speed), func() {
				w.stop(&StuckError{Streaming: true, Stalled: true, Waited: AfterFirstToken, Tokens: w.stuck.Tokens})
			})
		}
	}
}

// explain turns the error of a request that the budget cut short into the
// *StuckError that says so: "sent no token" when none came, "kept
// streaming" when some did. A cancel by the caller stays a cancel.
func (w *stuckWait) explain(res client.StreamResult, err error) error {
	if err == nil || w.parent.Err() != nil {
		return err
	}
	var own *StuckError
	if cause := context.Cause(w.ctx); errors.As(cause, &own) && own != w.stuck {
		return own // watch's: past max_tokens, or stalled after the first token
	}
	if !errors.Is(context.Cause(w.ctx), w.stuck) {
		return err
	}
	if !res.FirstChunk.IsZero() || !res.FirstToken.IsZero() {
		s := *w.stuck
		s.Streaming = true
		return &s
	}
	return w.stuck
}

// givesUp says, for a progress line, when the wait will end ("gives up
// as stuck after 23 s": "given up" read as if it already had).
func (w *stuckWait) givesUp() string {
	return "gives up as stuck after " + rundoc.ShortDuration(w.real)
}
