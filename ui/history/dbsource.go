package history

import (
	"context"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// DB is a Source over the SQLite history of package store: the runs kept
// across sessions, shared with rigbench-cli.
type DB struct {
	db *store.DB
}

var _ Source = (*DB)(nil)

// NewDB adapts an open history for the History view; the caller keeps
// ownership of db and closes it.
func NewDB(db *store.DB) *DB { return &DB{db: db} }

// RunsOnCard is the store's (predict.History): the newest runs on a card,
// which the app's predictions learn the card's efficiencies from.
func (d *DB) RunsOnCard(ctx context.Context, card string, simulated bool, limit int, keep func(*rundoc.Run) bool) ([]*rundoc.Run, error) {
	if d == nil {
		return nil, nil
	}
	return d.db.RunsOnCard(ctx, card, simulated, limit, keep)
}

// Path is the history file.
func (d *DB) Path() string { return d.db.Path() }

// List returns every run, newest first, from the history's list lines:
// no cells are read, so a long history lists quickly.
func (d *DB) List(ctx context.Context) ([]Entry, error) {
	sums, err := d.db.List(ctx, store.Filter{})
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(sums))
	for i, s := range sums {
		out[i] = Entry{
			Run: &rundoc.Run{
				UUID: s.UUID, Name: s.Name, Tags: s.Tags, CreatedAt: s.CreatedAt, FinishedAt: s.FinishedAt,
				Status: s.Status, Origin: s.Origin, Simulated: s.Simulated,
				Server: rundoc.Server{Model: s.Model, Engine: s.Engine, Version: s.EngineVersion},
			},
			GPU: s.GPU, Rig: s.Rig, Best: s.BestDecodeTokS, Imported: s.Imported,
			// The list keeps the arguments space-joined; a quoted value
			// with spaces in it reads as several words, which only the
			// Flags column shows.
			Flags: strings.Fields(s.Flags),
		}
	}
	return out, nil
}

// Get returns the run complete with its cells and samples.
func (d *DB) Get(ctx context.Context, id string) (*rundoc.Run, error) { return d.db.Get(ctx, id) }

// Rename sets a run's name.
func (d *DB) Rename(ctx context.Context, id, name string) error { return d.db.Rename(ctx, id, name) }

// SetTags replaces a run's tags.
func (d *DB) SetTags(ctx context.Context, id string, tags []string) error {
	return d.db.SetTags(ctx, id, tags)
}

// SetNotes replaces a run's notes.
func (d *DB) SetNotes(ctx context.Context, id, notes string) error {
	return d.db.SetNotes(ctx, id, notes)
}

// Delete removes a run with its cells.
func (d *DB) Delete(ctx context.Context, id string) error { return d.db.Delete(ctx, id) }

// Import stores a run read from a file; one already there is left as it is.
func (d *DB) Import(ctx context.Context, r *rundoc.Run) (bool, error) {
	return d.db.Import(ctx, r)
}

// Recorder returns the store's observer for one run: it writes the run when
// it starts and each cell the moment it finishes, so a crash loses at most
// the cell in flight.
func (d *DB) Recorder() Recorder { return d.db.Recorder() }

// RunsTagged is store.DB.RunsTagged.
func (d *DB) RunsTagged(ctx context.Context, tag string) ([]*rundoc.Run, error) {
	return d.db.RunsTagged(ctx, tag)
}

// Add saves a finished run whole (used when its recorder failed part-way,
// e.g. the disk was full for a moment), replacing what was recorded.
func (d *DB) Add(ctx context.Context, r *rundoc.Run) error { return d.db.SaveRun(ctx, r) }
