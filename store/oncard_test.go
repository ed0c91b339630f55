package store

import (
	"context"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// RunsOnCard gives the newest runs of the wanted kind that keep accepts,
// at most limit, reading past the runs of other cards whose label contains
// the name ("RTX 3080 Ti" holds "RTX 3080") and past demo runs; a nil DB
// has none.
func TestRunsOnCard(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(seed int, gpu string, simulated bool, day int) *rundoc.Run {
		r := fullRun(t, seed)
		r.Hardware.GPUs = []hardware.GPU{{Name: gpu}}
		r.Simulated = simulated
		r.CreatedAt = base.AddDate(0, 0, day)
		r.FinishedAt = r.CreatedAt.Add(time.Hour)
		if err := db.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	old := mk(101, "NVIDIA GeForce RTX 3080", false, 0)
	mid := mk(102, "NVIDIA GeForce RTX 3080", false, 1)
	mk(103, "NVIDIA GeForce RTX 3080 Ti", false, 2)
	mk(104, "NVIDIA GeForce RTX 3080 Ti", false, 3)
	demo := mk(105, "NVIDIA GeForce RTX 3080", true, 4)
	exact := func(r *rundoc.Run) bool { return r.Hardware.GPUs[0].Name == "NVIDIA GeForce RTX 3080" }
	got, err := db.RunsOnCard(ctx, "NVIDIA GeForce RTX 3080", false, 2, exact)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].UUID != mid.UUID || got[1].UUID != old.UUID {
		t.Errorf("measured runs on the 3080: %d, want the two 3080 runs newest first", len(got))
	}
	got, err = db.RunsOnCard(ctx, "NVIDIA GeForce RTX 3080", true, 5, nil)
	if err != nil || len(got) != 1 || got[0].UUID != demo.UUID {
		t.Errorf("demo runs: %d, %v; want the one demo run", len(got), err)
	}
	var none *DB
	if got, err := none.RunsOnCard(ctx, "x", false, 5, nil); err != nil || got != nil {
		t.Errorf("a nil DB: %v, %v", got, err)
	}
}
