package store

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

const childEnv = "RIGBENCH_STORE_TEST_CHILD"

// TestRecorderChild is the runner process of TestKilledRunnerLeavesCells:
// it records a run cell by cell, printing "done N" after each committed
// cell, until it is killed. It does nothing in a normal test run.
func TestRecorderChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("helper process for TestKilledRunnerLeavesCells")
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	full := fullRun(t, 70)
	run := *full
	run.Status, run.Cells, run.FinishedAt = rundoc.RunRunning, nil, time.Time{}
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	for i := 0; ; i++ {
		c := full.Cells[0]
		c.Context, c.Concurrency = i, 1+i%7
		run.Cells = append(run.Cells, c)
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[i], Index: i})
		if err := rec.Err(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("done %d %s\n", i, run.UUID)
		time.Sleep(2 * time.Millisecond)
	}
}

// TestKilledRunnerLeavesCells kills a recording process with SIGKILL in
// the middle of a run and checks that every cell it reported committed is
// in the history, with its samples, and that the run is interrupted.
func TestKilledRunnerLeavesCells(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "h.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	done, uuid := -1, ""
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && f[0] == "error" {
			t.Fatalf("child: %s", sc.Text())
		}
		if len(f) == 3 && f[0] == "done" {
			fmt.Sscan(f[1], &done)
			uuid = f[2]
			if done >= 20 {
				break
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // reap it, so its pid no longer exists
	if done < 20 {
		t.Fatalf("the child committed only %d cells before its output ended", done+1)
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open after the kill: %v", err)
	}
	defer db.Close()
	r, err := db.Get(context.Background(), uuid)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != rundoc.RunInterrupted {
		t.Errorf("status = %s, want interrupted", r.Status)
	}
	// Every reported cell is there (one more may have committed between
	// the report we read and the kill).
	if len(r.Cells) < done+1 {
		t.Errorf("%d cells in the history, the child had committed %d", len(r.Cells), done+1)
	}
	for i, c := range r.Cells {
		if c.Context != i || len(c.ServerSamples) != 2 || len(c.GPUSamples) != 2 {
			t.Fatalf("cell %d = context %d, %d+%d samples", i, c.Context, len(c.ServerSamples), len(c.GPUSamples))
		}
	}
	var integrity string
	if err := db.sql.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("integrity_check = %q, %v", integrity, err)
	}
}

// TestReadWhileRecording lists and reads a run from a second connection
// pool (as the app's history view would, or another process) while a
// recorder writes cells: in WAL mode no read fails or waits on the writer,
// and every read sees a consistent, growing run.
func TestReadWhileRecording(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	writer, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	reader, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	full := fullRun(t, 80)
	run := *full
	run.Status, run.Cells = rundoc.RunRunning, nil
	rec := writer.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	const cells = 40
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads atomic.Int64
	errs := make(chan error, 4)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for !stop.Load() {
				got, err := reader.Get(ctx, run.UUID)
				if err != nil {
					errs <- err
					return
				}
				list, err := reader.List(ctx, Filter{})
				if err != nil || len(list) != 1 {
					errs <- fmt.Errorf("List = %d runs, %v", len(list), err)
					return
				}
				if len(got.Cells) < last {
					errs <- fmt.Errorf("cells went from %d to %d", last, len(got.Cells))
					return
				}
				for _, c := range got.Cells {
					if len(c.ServerSamples) != 2 {
						errs <- errors.New("a cell was visible without its samples")
						return
					}
				}
				last = len(got.Cells)
				reads.Add(1)
				time.Sleep(time.Millisecond) // leave the shared CPUs to the writer too
			}
		}()
	}
	for i := 0; i < cells; i++ {
		c := full.Cells[1]
		c.Context = i
		run.Cells = append(run.Cells, c)
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &run.Cells[i]})
	}
	// On a loaded machine the writer can finish before a reader is
	// scheduled: keep the run open until one read has completed (bounded),
	// so the test checks reads during a recording rather than the
	// scheduler.
	for deadline := time.Now().Add(10 * time.Second); reads.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	run.Status = rundoc.RunComplete
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &run})
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	if reads.Load() == 0 {
		t.Error("no read completed while the run was recorded")
	}
	got, err := reader.Get(ctx, run.UUID)
	if err != nil || len(got.Cells) != cells || got.Status != rundoc.RunComplete {
		t.Errorf("final: %d cells, %v", len(got.Cells), err)
	}
}

// TestFullDiskKeepsHistory fills the database up to a page limit (SQLite's
// max_page_count gives the same SQLITE_FULL as a full disk, without filling
// the test machine's disk) and checks the error and that nothing is lost.
func TestFullDiskKeepsHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTemp(t)
	// One connection, so the per-connection page limit applies to all writes.
	db.sql.SetMaxOpenConns(1)
	kept := fullRun(t, 90)
	if err := db.SaveRun(ctx, kept); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := db.sql.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+1)); err != nil {
		t.Fatal(err)
	}
	big := fullRun(t, 91)
	for i := range big.Cells {
		big.Cells[i].Reason = strings.Repeat("x", 12<<10)
	}
	err := db.SaveRun(ctx, big)
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "is full; free some space") {
		t.Fatalf("SaveRun on a full disk = %v, want the full-disk sentence", err)
	}
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: big})
	if !errors.Is(rec.Err(), ErrFull) {
		t.Errorf("Recorder error = %v, want ErrFull", rec.Err())
	}
	if got, err := db.Get(ctx, kept.UUID); err != nil || len(got.Cells) != len(kept.Cells) {
		t.Errorf("the earlier run after a full disk: %v", err)
	}
	if _, err := db.Get(ctx, big.UUID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the failed run is half there: %v", err)
	}
	var integrity string
	if err := db.sql.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("integrity_check = %q, %v", integrity, err)
	}
	// Space comes back: the same save now works.
	if _, err := db.sql.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveRun(ctx, big); err != nil {
		t.Errorf("SaveRun once space is back: %v", err)
	}
}

// TestReadOnlyHistory checks the read-only paths. Tests run as root here,
// and root ignores file permissions, so a chmod'ed folder would not fail;
// instead the history is opened through SQLite's mode=ro (what a read-only
// mount or a file owned by another user produces: SQLITE_READONLY on the
// first write), and the folder case uses a path under a regular file,
// which no user can create.
func TestReadOnlyHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "h.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	kept := fullRun(t, 95)
	if err := db.SaveRun(ctx, kept); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	rodb := &DB{sql: ro, path: path}
	defer rodb.Close()
	err = rodb.SaveRun(ctx, fullRun(t, 96))
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "is read-only; make it and its folder writable") {
		t.Errorf("SaveRun on a read-only history = %v", err)
	}
	if err := rodb.Rename(ctx, kept.UUID, "x"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Rename on a read-only history = %v", err)
	}
	if got, err := rodb.Get(ctx, kept.UUID); err != nil || got.Name != kept.Name {
		t.Errorf("reading a read-only history: %v", err)
	}

	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, filepath.Join(file, "history.db"))
	if err == nil || !strings.Contains(err.Error(), "cannot open the history") || !strings.Contains(err.Error(), "or set RIGBENCH_DB to another file") {
		t.Errorf("Open under a regular file = %v, want a sentence about the folder and RIGBENCH_DB", err)
	}
}
