package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/store"
)

// A history that cannot be used is explained with the CLI's own remedy:
// the --db flag, next to the environment variable.
func TestHistoryErrorNamesDBFlag(t *testing.T) {
	notDB := filepath.Join(t.TempDir(), "h.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not SQLite ", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "runs", "--db", notDB)
	if want := "is not a RigBench history; pass --db with another file (or set RIGBENCH_DB to one)"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 saying %q", code, stderr, want)
	}
}

// A run ID the history does not have points to the command that lists
// them.
func TestUnknownRunNamesRunsCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	h, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	code, _, stderr := runCLI(t, "show", "deadbeef", "--db", db)
	if want := "no run has the ID deadbeef; 'rigbench-cli runs' lists them"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 saying %q", code, stderr, want)
	}
}
