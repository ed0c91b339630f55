package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestImportCompletesARunTheHistoryLost: after a full disk the history kept
// 1 of a run's cells and RigBench wrote the whole run to a file, whose
// import then said "already in the history" and left the other cells lost
// (issue 36 item 2). A file that holds every cell the history has, the
// same, and more completes the run; a second import changes nothing; a
// file whose copy of a cell differs is refused and changes nothing.
func TestImportCompletesARunTheHistoryLost(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	whole := fullRun(t, 1)
	if len(whole.Cells) < 2 {
		t.Fatalf("the sample run has %d cells; the test needs 2", len(whole.Cells))
	}
	kept := *whole
	kept.Cells = whole.Cells[:1]
	kept.Status = rundoc.RunInterrupted
	kept.Name = "renamed in the history"
	if err := db.SaveRun(ctx, &kept); err != nil {
		t.Fatal(err)
	}

	res, err := db.ImportRun(ctx, whole)
	if err != nil || res.Outcome != ImportCompleted || res.Added != len(whole.Cells)-1 {
		t.Fatalf("import of the whole run: %+v, %v; want completed with %d cells", res, err, len(whole.Cells)-1)
	}
	got, err := db.Get(ctx, whole.UUID)
	if err != nil || len(got.Cells) != len(whole.Cells) || got.Status != whole.Status || got.Name != kept.Name {
		t.Fatalf("after: %d cells, status %s, name %q, %v", len(got.Cells), got.Status, got.Name, err)
	}
	if res, err := db.ImportRun(ctx, whole); err != nil || res.Outcome != ImportSame {
		t.Errorf("second import: %+v, %v; want already in the history", res, err)
	}
	if inserted, err := db.Import(ctx, &kept); err != nil || inserted {
		t.Errorf("a file with fewer cells: inserted %v, %v; want nothing changed", inserted, err)
	}

	other := *whole
	other.Cells = append([]rundoc.Cell(nil), whole.Cells...)
	other.Cells[0].TotalTokS += 1
	_, err = db.ImportRun(ctx, &other)
	var ce *ImportConflictError
	if !errors.As(err, &ce) || ce.Cell != other.Cells[0].Label() {
		t.Fatalf("a differing cell: %v, want an *ImportConflictError naming %s", err, other.Cells[0].Label())
	}
	if after, _ := db.Get(ctx, whole.UUID); after.Cells[0].TotalTokS != whole.Cells[0].TotalTokS {
		t.Error("the refused import changed the history's cell")
	}
}
