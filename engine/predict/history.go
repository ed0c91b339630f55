package predict

import (
	"context"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// History is where a prediction's learning reads runs from; store.DB
// implements it. engine packages never import the store, so the front
// ends pass it in.
type History interface {
	// RunsOnCard returns the newest runs (demo runs with simulated) that
	// keep accepts, at most limit.
	RunsOnCard(ctx context.Context, card string, simulated bool, limit int, keep func(*rundoc.Run) bool) ([]*rundoc.Run, error)
}

// learnLimit is how many of a card's newest runs are learned from: a
// card's efficiencies are its recent launches', and reading more would
// slow the Launch view's live prediction on a long history.
const learnLimit = 20

// LearnFromHistory is Learn over the newest runs on card in h: measured
// runs for a real card, demo runs (simulated) for the demo's. A history
// that cannot be read leaves the prior as it is: a prediction without
// learning is still a prediction, and says it learned from no run. A nil
// h, or one holding a nil *store.DB, has no runs.
func LearnFromHistory(ctx context.Context, h History, prior Efficiency, card Card, simulated bool, models Models) Efficiency {
	if h == nil {
		return prior
	}
	onCard := func(r *rundoc.Run) bool {
		name, _, ok := RunCard(r)
		return ok && normCard(name) == normCard(card.Name)
	}
	runs, err := h.RunsOnCard(ctx, card.Name, simulated, learnLimit, onCard)
	if err != nil {
		return prior
	}
	return Learn(prior, card, runs, models)
}
