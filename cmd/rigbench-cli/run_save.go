package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
)

// saveFlags decide whether and where `run` records the run in the history.
type saveFlags struct {
	noSave bool
	db     string
	// kept holds the files no output of the command may replace: the
	// history, its companions and the sweep specs beside it (keep).
	kept safefile.Guard
}

// keep protects the history the flags name from the command's outputs.
func (s *saveFlags) keep(e *env) {
	if !s.noSave {
		keepHistory(&s.kept, e, s.db)
	}
}

// dbArg is " --db FILE" when the history is not the default one, for a
// command the user is told to paste: without it, the command would look in
// (and create) the default history.
func (s *saveFlags) dbArg() string {
	if s.db == "" {
		return ""
	}
	return " --db " + vllm.Quote(s.db)
}

func (s *saveFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&s.noSave, "no-save", false, "do not record the run in the history")
	fs.StringVar(&s.db, "db", "", "history database file (default $RIGBENCH_DB, else the user data folder)")
}

// recorder opens the history and returns its recorder, which writes each
// finished cell in its own transaction, so a crash loses nothing measured.
// close settles the run (store.Recorder.Settle: a write that failed on the
// way, a moment of full disk, is made good by saving the whole run) and
// reports what the history still lacks.
func (s *saveFlags) recorder(ctx context.Context, e *env) (rec *store.Recorder, close func(run *rundoc.Run) error, err error) {
	if s.noSave {
		return nil, func(*rundoc.Run) error { return nil }, nil
	}
	db, err := s.open(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	rec = db.Recorder()
	return rec, func(run *rundoc.Run) error {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		werr := rec.Settle(sctx, run)
		db.Close()
		if werr != nil {
			return fmt.Errorf("could not save this run completely: %w", werr)
		}
		return nil
	}, nil
}

// open opens the history the flags name, with errors that offer --no-save.
func (s *saveFlags) open(ctx context.Context, e *env) (*store.DB, error) {
	path, err := store.ResolvePath(s.db, e.getenv)
	if err != nil {
		return nil, fmt.Errorf("%w (or pass --no-save)", err)
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%w (pass --no-save to run without the history)", err)
	}
	return db, nil
}
