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

// warmPrefill sends, before the run's first measured prefill request, one
// hidden request of a fresh prompt of the cell's context with max_tokens
// 1, whose time is never measured (METHOD.md: Prefill cells), as the seed
// tool's "prefill warmup" does. A fresh server's first large prompt
// computes slower than every later one: on a real llama-server b9928 the
// first 512-token prompt ran at about 1,075 tok/s and later ones at about
// 1,500, and the server's own timer agreed, so no cross-check could tell.
// The warm-up's document is never sent again, so it seeds no context's
// shared document and leaves no prompt cache that a measured sample could
// hit. Later prefill cells of the run find the server warm.
func (r *Runner) warmPrefill(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell, index, total int) error {
	if r.prefillWarm {
		return nil
	}
	prompt, err := r.prompts.Prompt(ctx, cell.Context, r.newDoc())
	if err != nil {
		return err
	}
	w := r.untilFirstToken(ctx, run, cell.Context, cell.Context)
	defer w.cancel()
	r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: run, Cell: cell, Index: index, Total: total,
		Message: fmt.Sprintf("warming the server up with a %s-token prompt that is not measured (%s)", rundoc.ContextLabel(cell.Context), w.givesUp())})
	res, err := r.Client.Stream(w.ctx, r.request(r.modelID, prompt, 1), nil)
	if err = w.explain(res, err); err != nil {
		return err
	}
	r.prefillWarm = true
	return nil
}

// slotCopies is how many copies of a shared document a decode cell's
// warm-up sends (METHOD.md: Decode cells, step 2): one where the server
// shares its prefix cache between requests (vLLM, SGLang), and one per
// slot the cell's streams take where each slot caches apart
// (llama-server, Limits.SlotCache): min(N, slots), so that every stream of
// the window finds the document in its slot's cache instead of computing
// it inside the ramp.
func slotCopies(l Limits, docs []cellDoc) int {
	if !l.SlotCache || !shared(docs) {
		return 1
	}
	return l.Running(len(docs))
}

// warmSlots puts prompt into the caches of k slots at once (k ≥ 2): it
// keeps k copies of it in flight, each re-sent when it ends, until all k
// have a token at the same moment, then cancels them. k requests that
// stream at once hold k slots, so k slots have computed (or already held)
// the prompt. Copies sent with max_tokens 1 would not do: llama-server
// gives a request the free slot whose cache shares the longest prefix, so
// a copy that finds the prompt cached ends within a step, and the next
// copy to arrive takes that slot again and is served from its cache while
// other slots never see the prompt. The copies ask for maxTokens (the
// cell's M) so the cached one still streams while the others compute.
func (r *Runner) warmSlots(ctx context.Context, run *rundoc.Run, prompt string, k, promptLen, maxTokens int, started func(*stuckWait)) error {
	// The server computes the k prompts side by side, so the budget is for
	// all of their tokens.
	w := r.untilFirstToken(ctx, run, promptLen, k*max(promptLen, 1))
	defer w.cancel()
	started(w)
	hold, release := context.WithCancel(w.ctx)
	defer release()
	var (
		mu        sync.Mutex
		streaming int // copies whose current request has a token
		wg        sync.WaitGroup
	)
	body, err := r.request(r.modelID, prompt, max(maxTokens, 2)).Body()
	if err != nil {
		return err
	}
	errs := make([]error, k)
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for hold.Err() == nil {
				got := false
				// A content chunk (text or tokens) is the copy's first token.
				_, err := r.Client.StreamBody(hold, body, func(time.Time, int) {
					if got {
						return
					}
					got = true
					mu.Lock()
					if streaming++; streaming == k {
						release() // all k hold a slot at once
					}
					mu.Unlock()
				})
				mu.Lock()
				if got && streaming < k {
					streaming-- // it ended before the others streamed: send it again
				}
				mu.Unlock()
				if hold.Err() != nil {
					return // released (the copies' job is done), or stuck or cancelled
				}
				if err != nil {
					errs[i] = err
					release()
					return
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if streaming < k {
		if err := firstOf(errs); err != nil {
			return err
		}
		return w.explain(client.StreamResult{}, context.Cause(w.ctx))
	}
	return nil
}

// firstOf is the most useful of several copies' errors (joinDistinct,
// with a prompt too long or a stuck request said alone).
func firstOf(errs []error) error {
	var (
		tl    *client.PromptTooLongError
		stuck *StuckError
	)
	for _, err := range errs {
		if errors.As(err, &tl) || errors.As(err, &stuck) {
			return err
		}
	}
	return joinDistinct(errs)
}
