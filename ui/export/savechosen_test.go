package export

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/store"
)

// TestSaveDialogCannotEmptyTheHistory: the writer Fyne's save dialog hands
// over for the app's own history file leaves it whole (Fyne's own writer
// truncates at open, before the app sees the path), the Guard refuses the
// path without running the export, and the history still opens with its
// runs. A path elsewhere is written.
func TestSaveDialogCannotEmptyTheHistory(t *testing.T) {
	test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	dir := t.TempDir()
	hist := filepath.Join(dir, "history.db")
	t.Setenv("RIGBENCH_DB", hist)
	db, err := store.Open(context.Background(), hist)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(hist)
	if err != nil || len(before) == 0 {
		t.Fatalf("history file: %d bytes, %v", len(before), err)
	}
	if !keepFilesUntilWritten() {
		t.Fatal("Fyne's file repository could not be wrapped")
	}
	for _, name := range []string{"history.db", "history.db-wal", "history.db-shm"} {
		path := filepath.Join(dir, name)
		w, err := storage.Writer(storage.NewFileURI(path))
		if err != nil {
			t.Fatal(err)
		}
		wrote := false
		if saveChosen(win, w, func(string) error { wrote = true; return nil }) || wrote {
			t.Fatalf("an export onto %s was started", name)
		}
	}
	after, err := os.ReadFile(hist)
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the history changed: %d bytes before, %d after (%v)", len(before), len(after), err)
	}
	if db, err = store.Open(context.Background(), hist); err != nil {
		t.Fatalf("the history no longer opens: %v", err)
	}
	db.Close()

	out := filepath.Join(t.TempDir(), "run.html")
	w, err := storage.Writer(storage.NewFileURI(out))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	if !saveChosen(win, w, func(p string) error { done <- p; return nil }) {
		t.Fatal("an export elsewhere was refused")
	}
	select {
	case p := <-done:
		if p != out {
			t.Fatalf("wrote %s, want %s", p, out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the export never ran")
	}
}
