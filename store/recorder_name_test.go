package store

import (
	"context"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestRecorderStoresTheEndsName: a run cancelled before any cell ends with
// a name that says so (issue 41 item 9); the history stores it, unless the
// user renamed the run in History while it ran, whose name stands.
func TestRecorderStoresTheEndsName(t *testing.T) {
	t.Parallel()
	for _, renamed := range []bool{false, true} {
		db := openTemp(t)
		run := *fullRun(t, 7)
		run.Status, run.Cells, run.Name = rundoc.RunRunning, nil, "a1-4b-fp8 · Dec 4 12:40"
		rec := db.Recorder()
		rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
		if renamed {
			if err := db.Rename(context.Background(), run.UUID, "my name"); err != nil {
				t.Fatal(err)
			}
		}
		done := run
		done.Status, done.Name = rundoc.RunCancelled, rundoc.MarkNothingMeasured(run.Name)
		rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &done})
		if err := rec.Err(); err != nil {
			t.Fatal(err)
		}
		got, err := db.Get(context.Background(), run.UUID)
		if err != nil {
			t.Fatal(err)
		}
		want := done.Name
		if renamed {
			want = "my name"
		}
		if got.Name != want {
			t.Errorf("renamed %v: the history names the run %q, want %q", renamed, got.Name, want)
		}
		entries, err := db.List(context.Background(), Filter{})
		if err != nil || len(entries) != 1 || entries[0].Name != want {
			t.Errorf("renamed %v: the list says %+v (%v), want %q", renamed, entries, err, want)
		}
	}
}
