package predict

import (
	"context"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// History is where a prediction's learning reads runs from; store.DB
// implements it. engine packages never import the store, so the front
// ends pass it in.
type History interface {
	RunsOnCard(ctx context.Context, card string, simulated bool, limit int) ([]*rundoc.Run, error)
}

// learnLimit is how many of a card's newest runs are learned from: a
// card's efficiencies are its recent launches', and reading more would
// slow the Launch view's live prediction on a long history.
const learnLimit = 20

// LearnFromHistory is Learn over the newest runs on card in h: measured
// runs for a real card, demo runs (simulated) for the demo's. A history
// that cannot be read leaves the prior as it is: a prediction without
// learning is still a prediction, and says it learned from no run.
func LearnFromHistory(ctx context.Context, h History, prior Efficiency, card Card, simulated bool, models Models) Efficiency {
	if h == nil {
		return prior
	}
	runs, err := h.RunsOnCard(ctx, card.Name, simulated, learnLimit)
	if err != nil {
		return prior
	}
	return Learn(prior, card, runs, models)
}
