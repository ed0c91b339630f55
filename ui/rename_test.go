//go:build !race

package ui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/export"
	"github.com/rigbench/rigbench/ui/history"
)

// Issue 24 item 3: a rename in History reaches the run shown in Results
// (header and charts), the runs in Compare, and what the app's exports
// write (HTML, Markdown), though each view loaded its copy before it.
func TestRenameReachesResultsAndExports(t *testing.T) {
	if testing.Short() {
		t.Skip("a journey through the app with demo runs in real time (5 s or more): skipped with -short (make test runs it)")
	}
	u, _ := newUI(t)
	imported, err := history.ImportFile(context.Background(), u.History.Source(), referenceRun(t))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	reloaded(t, u)
	const name = "demo int4 kv 128 seqs"
	renamed := make(chan struct{})
	fyne.DoAndWait(func() {
		u.Results.SetRun(imported, nil)
		second := *imported
		second.UUID = "other"
		u.Compare.SetRuns([]*rundoc.Run{imported, &second}, nil)
		prev := u.History.OnEdited
		u.History.OnEdited = func() {
			if prev != nil {
				prev()
			}
			u.History.OnEdited = prev
			close(renamed)
		}
		u.History.RenameRun(imported.UUID, name)
	})
	select {
	case <-renamed:
	case <-time.After(10 * time.Second):
		t.Fatal("the rename was not written in 10 s")
	}
	fyne.DoAndWait(func() {
		if got := u.Results.Run().Name; got != name {
			t.Errorf("Results shows the run named %q after the rename, want %q", got, name)
		}
		if l := u.Compare.Legend(); !strings.Contains(l, name) {
			t.Errorf("Compare's legend %q does not name the renamed run", l)
		}
	})
	// The run view keeps the run it measured; its export still writes the
	// history's name.
	old := *imported
	runs := u.Exportable([]*rundoc.Run{&old})
	if runs[0].Name != name || old.Name == name {
		t.Fatalf("export of a run loaded before the rename names it %q (copy %q), want %q and the copy untouched", runs[0].Name, old.Name, name)
	}
	dir := t.TempDir()
	for _, f := range []report.Format{report.HTML, report.Markdown} {
		path := filepath.Join(dir, "run."+string(f))
		if err := export.WriteFile(path, f, runs); err != nil {
			t.Fatalf("%s export: %v", f, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), name) {
			t.Errorf("the %s export does not carry the new name %q", f, name)
		}
	}
}
