package bench

import (
	"context"
	"errors"
	"fmt"
	"github.com/rigbench/rigbench/engine/rundoc"
	"time"
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

// StuckError is the failure of warm-up or prefill requests that got no token
// within their budget: the server accepted them and then said nothing, so
// without a limit the run would wait for ever.
type StuckError struct {
	// Waited is the budget that ran out, in the served card's time.
	Waited time.Duration
	// Tokens is the prompt tokens the requests had to prefill.
	Tokens int
	// Floor is true when the least wait (Runner.FirstTokenTimeout) set
	// the budget, rather than stuckFactor × the predicted prefill time.
	Floor bool
}

func (e *StuckError) Error() string {
	why := fmt.Sprintf("%d× what the prefill rate predicts", stuckFactor)
	if e.Floor {
		why = "the least wait, far beyond what the prefill rate predicts"
	}
	return fmt.Sprintf("the server sent no token within %s for %d prompt tokens (%s); it may be stuck, swapping or out of memory",
		e.Waited.Round(time.Second), e.Tokens, why)
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

// untilFirstToken returns a context for warm-up or prefill requests that
// ends after the budget for tokens prompt tokens (real time: the budget ÷
// the simulator's speed), and a function that turns an error those requests
// returned because the budget ran out into the *StuckError that says so. A
// cancel by the caller stays a cancel.
func (r *Runner) untilFirstToken(ctx context.Context, run *rundoc.Run, promptLen, tokens int) (context.Context, context.CancelFunc, func(error) error) {
	budget, floor := r.firstTokenBudget(run, promptLen, tokens)
	stuck := &StuckError{Waited: budget, Tokens: tokens, Floor: floor}
	fctx, cancel := context.WithTimeoutCause(ctx, scaleDown(budget, run.Plan.Speed()), stuck)
	explain := func(err error) error {
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(fctx), stuck) {
			return stuck
		}
		return err
	}
	return fctx, cancel, explain
}
