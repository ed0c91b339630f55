package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestQualityMigratesFromVersion11: a history written before version 12
// (no quality column) opens with its run intact and without a quality
// check, then keeps a run's check, which reads back unchanged.
func TestQualityMigratesFromVersion11(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	raw, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, raw, 11); err != nil {
		t.Fatal(err)
	}
	if err := seedAtVersion[3](ctx, raw); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	old, err := db.Get(ctx, "c0ffee00")
	if err != nil {
		t.Fatal(err)
	}
	if old.Quality != nil || old.Name != "old run" || len(old.Cells) != 1 {
		t.Errorf("the old run reads back as %q with %d cells and quality %+v, want its name, its cell and no quality", old.Name, len(old.Cells), old.Quality)
	}
	run := fullRun(t, 12)
	if err := db.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, run.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Quality == nil || !reflect.DeepEqual(got.Quality, run.Quality) {
		t.Errorf("quality read back as %+v, want %+v", got.Quality, run.Quality)
	}
}

// TestRecorderKeepsTheQualityOfTheRunsEnd: the probe runs after the
// matrix, so its result first appears in the run's end event; the
// recorder writes it with the end.
func TestRecorderKeepsTheQualityOfTheRunsEnd(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	full := fullRun(t, 44)
	run := *full
	run.Status, run.Quality = rundoc.RunRunning, nil
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	done := *full
	done.Status = rundoc.RunComplete
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &done})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(context.Background(), run.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Quality, full.Quality) {
		t.Errorf("the recorded run's quality is %+v, want %+v", got.Quality, full.Quality)
	}
}
