package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/store"
)

// saveFlags decide whether and where `run` records the run in the history.
type saveFlags struct {
	noSave bool
	db     string
}

func (s *saveFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.noSave, "no-save", false, "do not record the run in the history")
	fs.StringVar(&s.db, "db", "", "history database file (default $RIGBENCH_DB, else the user data folder)")
}

// observer opens the history and returns its recorder, which writes each
// finished cell in its own transaction, so a crash loses nothing measured.
func (s *saveFlags) observer(ctx context.Context, e *env) (bench.Observer, func(), error) {
	if s.noSave {
		return nil, func() {}, nil
	}
	path := s.db
	if path == "" {
		path = e.getenv("RIGBENCH_DB")
	}
	if path == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return nil, nil, fmt.Errorf("cannot find the history folder (%v): pass --db FILE or --no-save", err)
		}
		path = p
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (pass --no-save to run without the history)", err)
	}
	return db.Recorder(), func() { db.Close() }, nil
}
