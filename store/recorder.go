package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// writeTimeout bounds one recorder write. Writes do not use the run's
// context: a cancelled run must still record its cells and its end.
const writeTimeout = 30 * time.Second

// Recorder is the history's observer of a run: it inserts the run when it
// starts (a run that fails before it starts, with no cell, is not kept),
// writes each finished cell with its samples in its own transaction
// as soon as the cell is done, and records the final status. A crash
// therefore loses at most the cell in flight, and the next Open marks the
// run interrupted.
//
// Observe runs on the runner's goroutine and returns when the write has
// committed (about a millisecond). A write that fails is kept in Err and
// later events still try, so one full-disk moment does not lose the rest.
type Recorder struct {
	db *DB

	mu    sync.Mutex
	runID int64
	uuid  string
	err   error
}

var _ rundoc.Observer = (*Recorder)(nil)

// Recorder returns a new observer that records one run into the history.
func (s *DB) Recorder() *Recorder { return &Recorder{db: s} }

// Observe records e. Only EventRunStarted, EventCellDone and EventRunDone
// write; progress events return at once.
func (r *Recorder) Observe(e rundoc.Event) {
	switch e.Kind {
	case rundoc.EventRunStarted, rundoc.EventCellDone, rundoc.EventRunDone:
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	var err error
	switch e.Kind {
	case rundoc.EventRunStarted:
		err = r.start(ctx, e.Run)
	case rundoc.EventCellDone:
		err = r.cell(ctx, e.Run, e.Cell)
	case rundoc.EventRunDone:
		err = r.finish(ctx, e.Run)
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

// Saved reports whether the run has a row in the history: false when it
// ended before it started (nothing to keep) or its first write failed.
func (r *Recorder) Saved() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runID != 0
}

// Err returns the first write that failed, nil when all succeeded.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// start inserts the run row (and any cells the document already holds),
// marked with this process's pid so another process's Open leaves it be.
func (r *Recorder) start(ctx context.Context, run *rundoc.Run) error {
	if run == nil || run.UUID == "" {
		return errors.New("the run has no UUID; it cannot be recorded")
	}
	r.uuid = run.UUID
	markRecording(run.UUID, true)
	return r.db.write(ctx, func(tx *sql.Tx) error {
		id, err := upsertRun(ctx, tx, run, runExtras{recorderPID: currentPID})
		if err != nil {
			return err
		}
		r.runID = id
		for i := range run.Cells {
			if err := putCell(ctx, tx, id, &run.Cells[i]); err != nil {
				return err
			}
		}
		return refreshHeadline(ctx, tx, id)
	})
}

// cell writes one finished cell in its own transaction. If the run was
// marked interrupted meanwhile (another process opened the history and
// could not see this one), it is marked running again.
func (r *Recorder) cell(ctx context.Context, run *rundoc.Run, c *rundoc.Cell) error {
	if c == nil {
		return nil
	}
	if r.runID == 0 {
		if err := r.start(ctx, run); err != nil {
			return err
		}
	}
	return r.db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'running', recorder_pid = ? WHERE id = ? AND status = 'interrupted'`, currentPID, r.runID); err != nil {
			return err
		}
		return putCell(ctx, tx, r.runID, c)
	})
}

// finish records the final status, finish time and error, and any cell of
// the final document that is not stored yet. Name, tags and notes are left
// alone: the user may have edited them while the run was going.
func (r *Recorder) finish(ctx context.Context, run *rundoc.Run) error {
	if run == nil {
		return nil
	}
	if r.runID == 0 {
		if len(run.Cells) == 0 {
			// The run ended before it began (unreachable server, wrong
			// key, bad plan): nothing was measured, the caller shows the
			// error, and a blank row would only clutter the history.
			return nil
		}
		if err := r.start(ctx, run); err != nil {
			return err
		}
	}
	defer markRecording(r.uuid, false)
	return r.db.write(ctx, func(tx *sql.Tx) error {
		stored := map[[3]any]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT phase, context, concurrency FROM cells WHERE run_id = ?`, r.runID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var p string
			var ctxTok, n int
			if err := rows.Scan(&p, &ctxTok, &n); err != nil {
				rows.Close()
				return err
			}
			stored[[3]any{rundoc.Phase(p), ctxTok, n}] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range run.Cells {
			c := &run.Cells[i]
			if !stored[[3]any{c.Phase, c.Context, c.Concurrency}] {
				if err := putCell(ctx, tx, r.runID, c); err != nil {
					return err
				}
			}
		}
		status := run.Status
		if status == rundoc.RunRunning || status == "" {
			status = rundoc.RunComplete
		}
		finished := run.FinishedAt
		if finished.IsZero() {
			finished = time.Now()
		}
		if _, err = tx.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, error = ?, recorder_pid = 0 WHERE id = ?`,
			string(status), nanos(finished), run.Error, r.runID); err != nil {
			return err
		}
		return refreshSummary(ctx, tx, r.runID)
	})
}

// recorders holds the UUIDs this process is recording, so Open in the same
// process never marks them interrupted.
var recorders sync.Map // uuid → struct{}

func markRecording(uuid string, on bool) {
	if on {
		recorders.Store(uuid, struct{}{})
	} else {
		recorders.Delete(uuid)
	}
}

func recording(uuid string) bool {
	_, ok := recorders.Load(uuid)
	return ok
}
