package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// TestImportCompletesTheRunAfterAFullDisk: when the history could not keep
// a run's cells, RigBench wrote the whole run to a file and said `import`
// would add it later, but the import answered "already in the history" and
// the cells stayed lost (issue 36 item 2). The import now completes the
// run, and says so; a second import changes nothing.
func TestImportCompletesTheRunAfterAFullDisk(t *testing.T) {
	dir := t.TempDir()
	db, whole := filepath.Join(dir, "h.db"), filepath.Join(dir, "whole.json")
	mustCLI(t, "run", "--demo", "--sim-speed", "50", "--contexts", "0", "--concurrency", "1,2", "--prefill", "none",
		"--duration", "5s", "--max-output", "16", "--no-telemetry", "--db", db, "--json", whole)
	full := readRunFile(t, whole)
	// The history kept only the first cell, as a full disk leaves it.
	ctx := context.Background()
	h, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	partial := *full
	partial.Cells = full.Cells[:1]
	if err := h.SaveRun(ctx, &partial); err != nil {
		t.Fatal(err)
	}
	h.Close()

	out := mustCLI(t, "import", whole, "--db", db)
	if want := "completed with 1 cell the history lacked"; !strings.Contains(out, want) {
		t.Errorf("import said %q, want %q", out, want)
	}
	// The history holds both cells as the run measured them, whatever
	// their status (a busy machine may make one Unreliable: it is kept as
	// such), and `show` draws the second.
	h, err = store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Get(ctx, full.UUID)
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != len(full.Cells) {
		t.Fatalf("the completed run holds %d cells, the file %d", len(got.Cells), len(full.Cells))
	}
	second := full.Cells[1]
	if c := got.Find(second.Phase, second.Context, second.Concurrency); c == nil || c.Status != second.Status || c.TotalTokS != second.TotalTokS {
		t.Errorf("the completed run's %s: %+v, the file's %+v", second.Name(), c, second)
	}
	shown := mustCLI(t, "show", full.UUID[:8], "--db", db)
	if want := secondCellText(second); !strings.Contains(shown, want) {
		t.Errorf("the completed run does not show its second cell (%q):\n%s", want, shown)
	}
	if out := mustCLI(t, "import", whole, "--db", db); !strings.Contains(out, "already in the history") {
		t.Errorf("second import said %q", out)
	}
}

// secondCellText is what `show` prints for c in its matrix: its figure
// when it has one, else its status.
func secondCellText(c rundoc.Cell) string {
	if c.Status == rundoc.StatusValid {
		return rundoc.FigTotalTokS.Text(&c)
	}
	return string(c.Status)
}
