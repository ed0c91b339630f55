//go:build !race

package ui_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/history"
)

// Issue 41 minor 10: after a restart Results shows the history's latest
// run (it said "No run yet" beside a History full of runs); a run deleted
// in History while Results shows it stays on screen with a line saying it
// is no longer kept, and the line goes when another run is shown.
func TestResultsOpensTheLatestRunAndSaysWhenItIsDeleted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	first, _ := newUIWithDB(t, db)
	<-first.ResultsOpened()
	fyne.DoAndWait(func() {
		if r := first.Results.Run(); r != nil {
			t.Errorf("an empty history opened %q in Results", r.Name)
		}
	})
	imported, err := history.ImportFile(context.Background(), first.History.Source(), referenceRun(t))
	if err != nil {
		t.Fatal(err)
	}
	newer := *imported
	newer.UUID, newer.Name = uuid.NewString(), "the newest run"
	newer.CreatedAt = imported.CreatedAt.Add(time.Hour)
	if err := first.History.Source().Add(context.Background(), &newer); err != nil {
		t.Fatal(err)
	}

	u, _ := newUIWithDB(t, db)
	select {
	case <-u.ResultsOpened():
	case <-time.After(10 * time.Second):
		t.Fatal("Results did not open a run at start")
	}
	var shown *rundoc.Run
	fyne.DoAndWait(func() { shown = u.Results.Run() })
	if shown == nil || shown.UUID != newer.UUID || len(shown.Cells) == 0 {
		t.Fatalf("Results at start shows %+v, want the newest run with its cells", shown)
	}

	deleted := make(chan struct{})
	fyne.DoAndWait(func() {
		if n := u.Results.DeletedNote(); n != "" {
			t.Errorf("a run still in History is said deleted: %q", n)
		}
		u.History.OnEdited = func() { close(deleted) }
		u.History.Delete([]*rundoc.Run{&newer})
	})
	select {
	case <-deleted:
	case <-time.After(10 * time.Second):
		t.Fatal("the delete did not finish")
	}
	fyne.DoAndWait(func() {
		if r := u.Results.Run(); r == nil || r.UUID != newer.UUID || !strings.Contains(u.Results.DeletedNote(), "deleted from History") {
			t.Errorf("after deleting the run shown: Results shows %v with the note %q, want the run and a note that it was deleted", r != nil, u.Results.DeletedNote())
		}
		u.Results.SetRun(imported, nil)
		if n := u.Results.DeletedNote(); n != "" {
			t.Errorf("another run shown keeps the deleted note %q", n)
		}
	})
}
