package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
