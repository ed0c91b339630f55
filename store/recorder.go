package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// writeTimeout bounds one recorder write. Writes do not use the run's
// context: a cancelled run must still record its cells and its end.
const writeTimeout = 30 * time.Second

// DefaultFinishRetry is how long the last write of a run (its status and
// every cell not stored yet) keeps trying while the history is busy: a
// write already waits busyTimeoutMs for the lock, and another RigBench
// holding it for longer (an import of many runs, a long edit) is waited
// out rather than turned into a failed save.
const DefaultFinishRetry = time.Minute

// Recorder is the history's observer of a run: it inserts the run when it
// starts (a run that fails before it starts, with no cell, is not kept),
// writes each finished cell with its samples in its own transaction
// as soon as the cell is done, and records the final status. A crash
// therefore loses at most the cell in flight, and the next Open marks the
// run interrupted.
//
// Observe runs on the runner's goroutine and returns when the write has
// committed (about a millisecond). A write that fails (a busy history, a
// full disk) is not the end: the next write also stores every cell still
// missing, and the last one retries for FinishRetry while the history is
// busy. Err reports only what is still unsaved after that.
type Recorder struct {
	db *DB
	// FinishRetry is how long the run's last write retries while the
	// history is busy (default DefaultFinishRetry).
	FinishRetry time.Duration

	mu    sync.Mutex
	runID int64
	uuid  string
	// saved holds the cells committed; behind is true while an earlier
	// write failed, so the next one catches up.
	saved    map[cellKey]bool
	behind   bool
	total    int  // cells of the run as last seen
	finished bool // the final status is committed
	// name is the run's name as first stored: the end stores the run's
	// name again (a run cancelled before any cell is named so, rundoc.
	// MarkNothingMeasured) only where the row still has this one, so a
	// rename made in History during the run stands.
	name string
	err  error
}

// cellKey names a cell within its run.
type cellKey struct {
	phase                rundoc.Phase
	context, concurrency int
}

func keyOf(c *rundoc.Cell) cellKey { return cellKey{c.Phase, c.Context, c.Concurrency} }

var _ rundoc.Observer = (*Recorder)(nil)

// Recorder returns a new observer that records one run into the history.
func (s *DB) Recorder() *Recorder {
	return &Recorder{db: s, FinishRetry: DefaultFinishRetry, saved: map[cellKey]bool{}}
}

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
	if e.Run != nil {
		r.total = len(e.Run.Cells)
	}
	var err error
	switch e.Kind {
	case rundoc.EventRunStarted:
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		err = r.start(ctx, e.Run)
		cancel()
	case rundoc.EventCellDone:
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		err = r.cell(ctx, e.Run, e.Cell)
		cancel()
	case rundoc.EventRunDone:
		err = r.finishRetrying(e.Run)
	}
	if err != nil {
		r.err, r.behind = err, true
	}
}

// finishRetrying is finish, tried again while the history is busy, for
// up to FinishRetry.
func (r *Recorder) finishRetrying(run *rundoc.Run) error {
	// Whatever the outcome, this process stops recording the run: a run
	// whose end could not be stored is marked interrupted at the next Open.
	defer markRecording(r.uuid, false)
	deadline := time.Now().Add(r.FinishRetry)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		err := r.finish(ctx, run)
		cancel()
		if err == nil || !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Saved reports whether the run has a row in the history: false when it
// ended before it started (nothing to keep) or its first write failed.
func (r *Recorder) Saved() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runID != 0
}

// SaveError says what a recorded run lost: the history holds Kept of the
// run's Cells finished cells (none at all when Stored is false), and its
// final status only when Finished. Err is the last write's failure.
type SaveError struct {
	Kept, Cells      int
	Stored, Finished bool
	Err              error
}

func (e *SaveError) Error() string {
	var kept string
	switch {
	case !e.Stored:
		kept = "the history kept nothing of this run"
	case e.Kept == e.Cells:
		kept = fmt.Sprintf("the history kept all %d cells of this run but not its end (it shows as interrupted)", e.Cells)
	default:
		kept = fmt.Sprintf("the history kept %d of the run's %d cells", e.Kept, e.Cells)
	}
	return kept + ": " + e.Err.Error()
}

func (e *SaveError) Unwrap() error { return e.Err }

// Err returns nil when everything the run produced is in the history (a
// write that failed and was caught up by a later one does not count), else
// a *SaveError saying what was kept.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errLocked()
}

// errLocked is Err with r.mu held.
func (r *Recorder) errLocked() error {
	if !r.behind {
		return nil
	}
	e := &SaveError{Cells: r.total, Stored: r.runID != 0, Finished: r.finished, Err: r.err}
	if e.Stored {
		e.Kept = len(r.saved)
	}
	return e
}

// Settle makes sure a finished run is in the history whole, for both front
// ends. The recorder wrote it cell by cell; when one of those writes failed
// (a moment of full disk, a busy history) and no later write caught up, the
// whole run is saved again now, in one transaction (SaveRun). A run that
// ended before it started, with no cells and no row, is left out, as the
// recorder leaves it out. It returns what Err returns afterwards: nil when
// everything the run produced is stored, else a *SaveError saying what the
// history kept.
func (r *Recorder) Settle(ctx context.Context, run *rundoc.Run) error {
	if r.Err() == nil || run == nil || run.UUID == "" || (len(run.Cells) == 0 && !r.Saved()) {
		return r.Err()
	}
	id, err := r.db.saveRun(ctx, run)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.err = err
		return r.errLocked()
	}
	r.runID, r.behind, r.finished, r.total = id, false, true, len(run.Cells)
	for i := range run.Cells {
		r.saved[keyOf(&run.Cells[i])] = true
	}
	return nil
}

// caughtUp records that a write stored cells, and that nothing is missing
// any more when all of the run's cells are stored (and, at its end, its
// status).
func (r *Recorder) caughtUp(run *rundoc.Run, cells []*rundoc.Cell) {
	for _, c := range cells {
		r.saved[keyOf(c)] = true
	}
	if run == nil {
		return
	}
	for i := range run.Cells {
		if !r.saved[keyOf(&run.Cells[i])] {
			return
		}
	}
	if r.behind && (r.finished || run.Status == rundoc.RunRunning || run.Status == "") {
		r.behind, r.err = false, nil
	}
}

// start inserts the run row (and any cells the document already holds),
// marked with this process's pid so another process's Open leaves it be.
func (r *Recorder) start(ctx context.Context, run *rundoc.Run) error {
	if run == nil || run.UUID == "" {
		return errors.New("the run has no UUID; it cannot be recorded")
	}
	r.uuid = run.UUID
	markRecording(run.UUID, true)
	var id int64
	err := r.db.write(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = upsertRun(ctx, tx, run, runExtras{recorderPID: currentPID}); err != nil {
			return err
		}
		for i := range run.Cells {
			if err := putCell(ctx, tx, id, &run.Cells[i]); err != nil {
				return err
			}
		}
		return refreshHeadline(ctx, tx, id)
	})
	if err != nil {
		return err
	}
	r.runID, r.name = id, run.Name
	cells := make([]*rundoc.Cell, len(run.Cells))
	for i := range run.Cells {
		cells[i] = &run.Cells[i]
	}
	r.caughtUp(run, cells)
	return nil
}

// cell writes one finished cell in its own transaction, with every
// earlier cell a failed write left out. If the run was marked interrupted
// meanwhile (another process opened the history and could not see this
// one), it is marked running again.
func (r *Recorder) cell(ctx context.Context, run *rundoc.Run, c *rundoc.Cell) error {
	if c == nil {
		return nil
	}
	if r.runID == 0 {
		// The start was not stored: storing it now stores the cells too.
		return r.start(ctx, run)
	}
	cells := []*rundoc.Cell{c}
	if r.behind && run != nil {
		cells = cells[:0]
		for i := range run.Cells {
			if !r.saved[keyOf(&run.Cells[i])] {
				cells = append(cells, &run.Cells[i])
			}
		}
	}
	err := r.db.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'running', recorder_pid = ? WHERE id = ? AND status = 'interrupted'`, currentPID, r.runID); err != nil {
			return err
		}
		for _, c := range cells {
			if err := putCell(ctx, tx, r.runID, c); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.caughtUp(run, cells)
	return nil
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
			r.behind, r.err = false, nil
			return nil
		}
		if err := r.start(ctx, run); err != nil {
			return err
		}
	}
	var written []*rundoc.Cell
	err := r.db.write(ctx, func(tx *sql.Tx) error {
		written = written[:0]
		stored := map[cellKey]bool{}
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
			stored[cellKey{rundoc.Phase(p), ctxTok, n}] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range run.Cells {
			c := &run.Cells[i]
			if !stored[keyOf(c)] {
				if err := putCell(ctx, tx, r.runID, c); err != nil {
					return err
				}
			}
			written = append(written, c)
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
		if run.Quality != nil {
			// Asked after the matrix (session.RunQuality): it reaches the
			// history with the run's end.
			q, err := jsonCol(run.Quality, false)
			if err != nil {
				return err
			}
			if _, err = tx.ExecContext(ctx, `UPDATE run_documents SET quality = ? WHERE run_id = ?`, q, r.runID); err != nil {
				return err
			}
		}
		if run.Name != r.name {
			if _, err = tx.ExecContext(ctx, `UPDATE runs SET name = ? WHERE id = ? AND name = ?`, run.Name, r.runID, r.name); err != nil {
				return err
			}
		}
		return refreshSummary(ctx, tx, r.runID)
	})
	if err != nil {
		return err
	}
	r.finished = true
	r.caughtUp(run, written)
	return nil
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
