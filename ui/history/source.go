package history

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Source is where the History view reads and edits runs: the SQLite
// history store in the app, a session-only list when no database could be
// opened.
type Source interface {
	// List returns the runs, newest first; their cells may be left out.
	List(ctx context.Context) ([]Entry, error)
	// Get returns one run with every cell.
	Get(ctx context.Context, uuid string) (*rundoc.Run, error)
	Rename(ctx context.Context, uuid, name string) error
	SetTags(ctx context.Context, uuid string, tags []string) error
	SetNotes(ctx context.Context, uuid, notes string) error
	Delete(ctx context.Context, uuid string) error
	// Import stores a run read from a file (idempotent by UUID); added is
	// false when a run with its UUID was already there.
	Import(ctx context.Context, r *rundoc.Run) (added bool, err error)
	// Recorder returns a new observer that saves one run as it is
	// measured, each cell as it finishes, or nil when runs are added after
	// they finish (Add).
	Recorder() Recorder
	// Add keeps a finished run that no recorder saved (or whose recorder
	// failed), replacing any earlier copy with its UUID.
	Add(ctx context.Context, r *rundoc.Run) error
	// RunsTagged returns every run carrying tag, with its cells, newest
	// first: a sweep finds its variants by tune.Tag (tune.History), as the
	// CLI does with store.DB.RunsTagged.
	RunsTagged(ctx context.Context, tag string) ([]*rundoc.Run, error)
}

// RunsTagged returns the runs carrying tag, newest first.
func (m *Memory) RunsTagged(_ context.Context, tag string) ([]*rundoc.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*rundoc.Run
	for i := len(m.runs) - 1; i >= 0; i-- {
		if slices.Contains(m.runs[i].Tags, tag) {
			out = append(out, m.runs[i])
		}
	}
	return out, nil
}

// Recorder is an observer that writes a run into the history as it goes;
// Err reports the first write that failed.
type Recorder interface {
	rundoc.Observer
	Err() error
	// Saved reports whether the run has a row in the history.
	Saved() bool
	// Settle saves the finished run whole when a write failed on the way
	// (store.Recorder.Settle, which the CLI calls too) and returns what
	// Err returns then.
	Settle(ctx context.Context, run *rundoc.Run) error
}

// Memory is a Source that keeps this session's runs in memory, for when
// the history database cannot be opened: runs still show, compare and
// export, and the view says they will not be kept.
type Memory struct {
	mu       sync.Mutex
	runs     []*rundoc.Run
	imported map[string]bool // UUIDs that came from files
}

var _ Source = (*Memory)(nil)

// List returns the runs, newest first.
func (m *Memory) List(context.Context) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Entry, 0, len(m.runs))
	for i := len(m.runs) - 1; i >= 0; i-- {
		e := EntryOf(m.runs[i])
		e.Imported = e.Imported || m.imported[e.Run.UUID]
		out = append(out, e)
	}
	return out, nil
}

// Get returns a run by UUID.
func (m *Memory) Get(_ context.Context, id string) (*rundoc.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs {
		if r.UUID == id {
			return r, nil
		}
	}
	return nil, errors.New("that run is no longer in the history")
}

func (m *Memory) edit(id string, f func(r *rundoc.Run)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.runs {
		if r.UUID == id {
			f(r)
			return nil
		}
	}
	return errors.New("that run is no longer in the history")
}

// Rename sets a run's name.
func (m *Memory) Rename(_ context.Context, id, name string) error {
	return m.edit(id, func(r *rundoc.Run) { r.Name = name })
}

// SetTags sets a run's tags.
func (m *Memory) SetTags(_ context.Context, id string, tags []string) error {
	return m.edit(id, func(r *rundoc.Run) { r.Tags = tags })
}

// SetNotes sets a run's notes.
func (m *Memory) SetNotes(_ context.Context, id, notes string) error {
	return m.edit(id, func(r *rundoc.Run) { r.Notes = notes })
}

// Delete removes a run.
func (m *Memory) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs = slices.DeleteFunc(m.runs, func(r *rundoc.Run) bool { return r.UUID == id })
	return nil
}

// Import adds a run unless one with its UUID is there.
func (m *Memory) Import(_ context.Context, r *rundoc.Run) (bool, error) {
	if err := rundoc.ValidateRun(r); err != nil {
		return false, err
	}
	added := m.keep(r, false)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.imported == nil {
		m.imported = map[string]bool{}
	}
	if added {
		m.imported[r.UUID] = true
	}
	return added, nil
}

// Recorder is nil: runs are added when they finish.
func (m *Memory) Recorder() Recorder { return nil }

// Add keeps a finished run, replacing an earlier copy with its UUID.
func (m *Memory) Add(_ context.Context, r *rundoc.Run) error {
	m.keep(r, true)
	return nil
}

// keep adds r; a run with the same UUID is replaced when replace is set
// and otherwise left as it is (Import is idempotent). It reports whether r
// was new.
func (m *Memory) keep(r *rundoc.Run, replace bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.runs {
		if x.UUID == r.UUID && r.UUID != "" {
			if replace {
				m.runs[i] = r
			}
			return false
		}
	}
	m.runs = append(m.runs, r)
	return true
}
