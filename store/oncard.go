package store

import (
	"context"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// RunsOnCard returns the newest runs, at most limit, whose cards' label
// contains card (case-insensitive), measured (simulated false) or demo
// runs (simulated true), whole: what engine/predict learns a card's
// efficiencies from (predict.History). A demo run records no GPU of this
// machine, so with simulated every demo run is a candidate and the caller
// keeps those of its profile's card.
//
// keep says which runs count toward limit (the card's own: a label that
// contains "RTX 3080" also names a 3080 Ti); a nil DB has no runs.
func (s *DB) RunsOnCard(ctx context.Context, card string, simulated bool, limit int, keep func(*rundoc.Run) bool) ([]*rundoc.Run, error) {
	if s == nil {
		return nil, nil
	}
	f := Filter{GPU: card}
	if simulated {
		f.GPU = ""
	}
	// Demo and measured runs, and other cards', are mixed in the list: read
	// a bounded number more than asked for, so limit of the wanted kind are
	// found on a history that mixes them.
	f.Limit = 10 * limit
	list, err := s.List(ctx, f)
	if err != nil {
		return nil, err
	}
	var out []*rundoc.Run
	for _, sum := range list {
		if sum.Simulated != simulated || len(out) >= limit {
			continue
		}
		r, err := s.Get(ctx, sum.UUID)
		if err != nil {
			return nil, err
		}
		if keep == nil || keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}
