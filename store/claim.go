package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Claim marks run id as being measured by this process before a resume
// measures anything, in one write transaction: two `run --resume ID`
// started together both measured the missing cells and both said "saved",
// one's figures silently lost (issue 36 item 2). SQLite serialises the
// transactions (BEGIN IMMEDIATE), so of two claims one finds the run
// running under a live process and is refused. A claim by a process that
// died is taken over, as Open would mark its run interrupted. release puts
// the run back as it was if nothing recorded it meanwhile (the resume
// stopped before its first event); once the recorder has finished the run
// it changes nothing.
func (r *Recorder) Claim(ctx context.Context, id string) (release func(), err error) {
	var (
		rowID int64
		was   rundoc.RunStatus
	)
	err = r.db.write(ctx, func(tx *sql.Tx) error {
		var (
			status string
			pid    int
		)
		if err := tx.QueryRowContext(ctx, `SELECT id, status, recorder_pid FROM runs WHERE uuid = ?`, id).Scan(&rowID, &status, &pid); err != nil {
			return err
		}
		if status == string(rundoc.RunRunning) && pid != currentPID && processAlive(pid) {
			return fmt.Errorf("run %s is being measured by another RigBench (process %d): let it finish, or stop it, then resume", rundoc.ShortID(id), pid)
		}
		was = rundoc.RunStatus(status)
		_, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'running', recorder_pid = ? WHERE id = ?`, currentPID, rowID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return func() {
		r.mu.Lock()
		started := r.runID != 0
		r.mu.Unlock()
		if started {
			return // the recorder owns the run's status now
		}
		r.db.write(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
			_, err := tx.ExecContext(context.WithoutCancel(ctx), `UPDATE runs SET status = ?, recorder_pid = 0 WHERE id = ? AND status = 'running' AND recorder_pid = ?`,
				string(was), rowID, currentPID)
			return err
		})
	}, nil
}
