package history

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// TestRunsTaggedBothSources: a sweep finds its variants by tag the same way
// in the session list and in the SQLite history (store.DB.RunsTagged),
// newest first, other runs left out.
func TestRunsTaggedBothSources(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, src := range map[string]Source{"memory": &Memory{}, "sqlite": NewDB(db)} {
		for i, tags := range [][]string{{"sweep:0123abcd"}, {"other"}, {"x", "sweep:0123abcd"}} {
			r := &rundoc.Run{UUID: "00000000-0000-4000-8000-00000000000" + string(rune('1'+i)), Name: "run", Tags: tags,
				Status: rundoc.RunComplete, Origin: rundoc.OriginMeasured, Plan: rundoc.Plan{MaxOutput: 1}}
			r.CreatedAt = r.CreatedAt.AddDate(2026, 0, i)
			if err := src.Add(ctx, r); err != nil {
				t.Fatalf("%s: add: %v", name, err)
			}
		}
		runs, err := src.RunsTagged(ctx, "sweep:0123abcd")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(runs) != 2 || runs[0].UUID[len(runs[0].UUID)-1] != '3' || runs[1].UUID[len(runs[1].UUID)-1] != '1' {
			t.Errorf("%s: %d runs tagged, want runs 3 then 1", name, len(runs))
		}
	}
}
