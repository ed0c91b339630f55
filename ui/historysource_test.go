package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/history"
)

// RIGBENCH_DB chooses the history file, which is created when absent.
func TestOpenHistoryUsesRigbenchDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "h.db")
	src, note, _, closeFn := openHistory(func(k string) string { return map[string]string{store.EnvDB: path}[k] })
	defer closeFn()
	if _, ok := src.(*history.DB); !ok {
		t.Fatalf("source is %T, want the SQLite history", src)
	}
	if !strings.Contains(note, path) {
		t.Errorf("note %q does not say where the history is", note)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("history file not created: %v", err)
	}
}

// A file that is not a history: the app keeps runs in memory and says why
// in one sentence.
func TestOpenHistoryFallsBackToMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("shopping list: not a database, not at all, no"), 0o600); err != nil {
		t.Fatal(err)
	}
	src, note, _, closeFn := openHistory(func(k string) string { return map[string]string{store.EnvDB: path}[k] })
	defer closeFn()
	if _, ok := src.(*history.Memory); !ok {
		t.Fatalf("source is %T, want the session-only list", src)
	}
	if !strings.Contains(note, "not a RigBench history") || !strings.Contains(note, "only until RigBench closes") {
		t.Errorf("note %q does not give the cause and the consequence", note)
	}
}
