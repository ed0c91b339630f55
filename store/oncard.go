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
func (s *DB) RunsOnCard(ctx context.Context, card string, simulated bool, limit int) ([]*rundoc.Run, error) {
	f := Filter{GPU: card}
	if simulated {
		f.GPU = ""
	}
	// Demo and measured runs are mixed in the list: read a few more than
	// asked for, so limit of the wanted kind are found.
	f.Limit = 4 * limit
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
		out = append(out, r)
	}
	return out, nil
}
