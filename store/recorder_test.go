package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// lockHistory takes the history's write lock from a connection of its own,
// as another RigBench process would, and returns the function that lets
// it go.
func lockHistory(t *testing.T, db *DB) (unlock func()) {
	t.Helper()
	other, err := sql.Open("sqlite", "file:"+db.Path())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		other.Close()
	}
}

// shortBusyTimeout makes the history wait ms for a lock instead of
// busyTimeoutMs, so a test sees writes fail as busy within a second: one
// connection, whose pragma then applies to every write.
func shortBusyTimeout(t *testing.T, db *DB, ms int) {
	t.Helper()
	db.sql.SetMaxOpenConns(1)
	if _, err := db.sql.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", ms)); err != nil {
		t.Fatal(err)
	}
}

// TestRecorderWaitsOutABusyHistory: another process holds the history's
// lock at the run's start and again at its end, longer than a write waits.
// The writes that failed are caught up by later ones and the last write
// retries, so every cell and the end are saved and the recorder reports no
// error (issue 12 #9: all 9 cells were saved, yet the run said it could
// not save them).
func TestRecorderWaitsOutABusyHistory(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	shortBusyTimeout(t, db, 200)
	full := fullRun(t, 42)
	run := *full
	run.Status, run.Cells = rundoc.RunRunning, nil
	rec := db.Recorder()
	rec.FinishRetry = 10 * time.Second

	unlock := lockHistory(t, db)
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	run.Cells = append(run.Cells, full.Cells[0])
	rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[0]})
	if rec.Err() == nil || !errors.Is(rec.Err(), ErrBusy) {
		t.Fatalf("while locked: Err = %v, want busy (the test locked nothing?)", rec.Err())
	}
	unlock()
	for i := 1; i < len(full.Cells); i++ {
		run.Cells = append(run.Cells, full.Cells[i])
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[i]})
	}
	if err := rec.Err(); err != nil {
		t.Fatalf("after the lock went: %v", err)
	}
	// Locked again at the end, for longer than one write waits: the last
	// write retries until it is let go.
	unlock = lockHistory(t, db)
	time.AfterFunc(time.Second, unlock)
	done := run
	done.Status = rundoc.RunComplete
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &done})
	if err := rec.Err(); err != nil {
		t.Fatalf("after the run: %v", err)
	}
	got, err := db.Get(context.Background(), run.UUID)
	if err != nil || got.Status != rundoc.RunComplete || len(got.Cells) != len(full.Cells) {
		t.Fatalf("history holds %v: %v", got, err)
	}
}

// TestRecorderSaysWhatWasKept: when the disk fills after two cells, the
// recorder's error says that two of the three cells were kept and why,
// never that nothing was lost (issue 12 #8).
func TestRecorderSaysWhatWasKept(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	db.sql.SetMaxOpenConns(1)
	full := fullRun(t, 43)
	cells := make([]rundoc.Cell, 3)
	for i := range cells {
		cells[i] = full.Cells[0]
		cells[i].Concurrency += i
	}
	run := *full
	run.Status, run.Cells = rundoc.RunRunning, nil
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	for i := range 2 {
		run.Cells = append(run.Cells, cells[i])
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[i]})
	}
	var pages int
	if err := db.sql.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	big := cells[2]
	big.Reason = strings.Repeat("x", 12<<10)
	run.Cells = append(run.Cells, big)
	rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[2]})
	done := run
	done.Status = rundoc.RunComplete
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &done})
	err := rec.Err()
	var se *SaveError
	if !errors.As(err, &se) || !errors.Is(err, ErrFull) || se.Kept != 2 || se.Cells != 3 || se.Finished {
		t.Fatalf("Err = %v (%+v), want 2 of 3 cells kept on a full disk", err, se)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "the history kept 2 of the run's 3 cells: the disk holding the history") ||
		strings.Contains(msg, "nothing was lost") {
		t.Errorf("message %q", msg)
	}
}

// TestSettleSavesWhatTheRecorderMissed: a cell write that failed on a full
// disk is made good at the run's end once space is back (both front ends
// call Settle); while the disk is still full Settle says what was kept.
func TestSettleSavesWhatTheRecorderMissed(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	db.sql.SetMaxOpenConns(1)
	full := fullRun(t, 44)
	run := *full
	run.Status, run.Cells = rundoc.RunRunning, nil
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	var pages int
	if err := db.sql.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	big := full.Cells[0]
	big.Reason = strings.Repeat("x", 12<<10)
	run.Cells = append(run.Cells, big)
	rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[0]})
	done := run
	done.Status = rundoc.RunComplete
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &done})
	ctx := context.Background()
	var se *SaveError
	if err := rec.Settle(ctx, &done); !errors.As(err, &se) || se.Kept != 0 || !errors.Is(err, ErrFull) {
		t.Fatalf("Settle on a full disk = %v, want what was kept (no cell)", err)
	}
	if _, err := db.sql.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := rec.Settle(ctx, &done); err != nil || rec.Err() != nil || !rec.Saved() {
		t.Fatalf("Settle with space again = %v (Err %v, saved %v)", err, rec.Err(), rec.Saved())
	}
	got, err := db.Get(ctx, done.UUID)
	if err != nil || len(got.Cells) != 1 || got.Cells[0].Reason != big.Reason || got.Status != rundoc.RunComplete {
		t.Fatalf("history holds %+v (%v), want the whole finished run", got, err)
	}
}

// TestOpenWaitsOutABusyHistory: opening a history another process holds
// for longer than the busy timeout (5 s) waits for it, instead of failing
// a run before it starts (issue 12 #9).
func TestOpenWaitsOutABusyHistory(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	path := db.Path()
	unlock := lockHistory(t, db)
	db.Close()
	time.AfterFunc(busyTimeoutMs*time.Millisecond+time.Second, unlock)
	start := time.Now()
	again, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open of a history busy for %v: %v", time.Since(start), err)
	}
	again.Close()
	if took := time.Since(start); took < busyTimeoutMs*time.Millisecond {
		t.Errorf("Open returned after %v: the history was not locked, the test tested nothing", took)
	}
}
