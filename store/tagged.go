package store

import (
	"context"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// RunsTagged returns every run carrying exactly this tag, complete with
// cells, newest first. A Tune sweep finds its finished variants this way
// (engine/tune: the tag "sweep:ID").
func (s *DB) RunsTagged(ctx context.Context, tag string) ([]*rundoc.Run, error) {
	sums, err := s.List(ctx, Filter{Tag: tag})
	if err != nil {
		return nil, err
	}
	out := make([]*rundoc.Run, 0, len(sums))
	for _, m := range sums {
		r, err := s.Get(ctx, m.UUID)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
