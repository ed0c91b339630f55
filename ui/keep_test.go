package ui

import (
	"context"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/history"
)

// In the session-only history (no database), a run that ended before it
// started leaves no blank row, as in the real history; a run with cells
// is kept.
func TestKeepSkipsRunsThatNeverStarted(t *testing.T) {
	u := &UI{notSaved: map[string]bool{}}
	src := &history.Memory{}
	u.keep(src, nil, &rundoc.Run{UUID: "6f9a1c2e-0000-4000-8000-000000000001", Status: rundoc.RunFailed, Error: "unreachable"})
	u.keep(src, nil, &rundoc.Run{UUID: "6f9a1c2e-0000-4000-8000-000000000002", Status: rundoc.RunCancelled,
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 1, Status: rundoc.StatusCancelled}}})
	list, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Run.UUID != "6f9a1c2e-0000-4000-8000-000000000002" {
		t.Errorf("session history holds %d runs, want only the one with a cell", len(list))
	}
}
