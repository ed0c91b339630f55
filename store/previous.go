package store

import (
	"context"
	"strings"
)

// previousLookups bounds how many of the newest runs naming a model
// PreviousArgs reads whole: a run's launch is in its document, not in the
// list's summary, and a name must not wait on a long history.
const previousLookups = 5

// PreviousArgs returns the launch arguments of the newest run in the
// history that launched model (rundoc.Launch.Model, exactly), ok false
// when none of the newest few runs naming it did. A new run's default
// name leads with the flags that differ from it (session.History).
func (s *DB) PreviousArgs(ctx context.Context, model string) ([]string, bool) {
	short := model
	if i := strings.LastIndex(short, "/"); i >= 0 {
		short = short[i+1:]
	}
	list, err := s.List(ctx, Filter{Model: short, Limit: previousLookups})
	if err != nil {
		return nil, false
	}
	for _, sum := range list {
		r, err := s.Get(ctx, sum.UUID)
		if err != nil || r.Launch == nil || r.Launch.Model != model {
			continue
		}
		return r.Launch.Args, true
	}
	return nil, false
}

// PreviousArgs is DB.PreviousArgs for the run being recorded, bounded by
// the history's write timeout: the run is named before it is written.
func (r *Recorder) PreviousArgs(model string) ([]string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return r.db.PreviousArgs(ctx, model)
}
