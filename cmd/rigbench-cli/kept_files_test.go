package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output never lands on a file the command itself uses: the history
// (and its -wal and -shm), a kept sweep spec, or one of its inputs. Each
// refusal names what the file is, and the file is left as it was.
func TestOutputNeverReplacesAFileTheCommandUses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	ref := refCopy(t, dir)
	mustCLI(t, "import", ref, "--db", db)
	id := firstUUID(t, db)
	spec := filepath.Join(dir, "sweeps", "0123abcd.json")
	if err := os.MkdirAll(filepath.Dir(spec), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("history.db", filepath.Join(dir, "alias.db")); err != nil {
		t.Fatal(err)
	}
	refBefore, _ := os.ReadFile(ref)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"run --json onto the history", []string{"run", "--demo", "--sim-speed", "50", "--contexts", "0", "--concurrency", "1", "--prefill", "none",
			"--duration", "5s", "--max-output", "32", "--no-telemetry", "--db", db, "--json", db}, "history"},
		{"run --json onto the history's WAL", []string{"run", "--demo", "--sim-speed", "50", "--contexts", "0", "--concurrency", "1", "--prefill", "none",
			"--duration", "5s", "--max-output", "32", "--no-telemetry", "--db", db, "--json", db + "-wal"}, "history"},
		{"export -o onto the history", []string{"export", id, "--db", db, "-o", db}, "history"},
		{"export -o through a link to the history", []string{"export", id, "--db", db, "-o", filepath.Join(dir, "alias.db")}, "history"},
		{"export -o onto the history's shm", []string{"export", id, "--db", db, "-o", db + "-shm"}, "history"},
		{"export -o onto a sweep spec", []string{"export", id, "--db", db, "-o", spec}, "sweep"},
		{"compare -o onto its input", []string{"compare", ref, id, "--db", db, "--format", "md", "-o", ref}, "compares"},
		{"tune --json onto the history", []string{"tune", "--demo", "--sim-speed", "50", "--vary", "kv-cache-dtype=auto,fp8", "--contexts", "1K",
			"--concurrency", "1", "--duration", "5s", "--no-telemetry", "--db", db, "--json", filepath.Join(dir, ".", "history.db")}, "history"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code == 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "choose another file name") {
				t.Errorf("exit %d, stderr %q: want a refusal naming the %s", code, stderr, c.want)
			}
		})
	}
	if out := mustCLI(t, "runs", "--db", db); !strings.Contains(out, id[:8]) {
		t.Errorf("the history lost its run:\n%s", out)
	}
	if b, _ := os.ReadFile(spec); string(b) != "{}\n" {
		t.Errorf("the sweep spec was replaced by %q", b)
	}
	if b, _ := os.ReadFile(ref); string(b) != string(refBefore) {
		t.Errorf("compare's input was replaced")
	}
}

// A filter that matches nothing says so; "no runs yet" is only for an
// empty history.
func TestRunsFilterWithNoMatch(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	mustCLI(t, "import", refCopy(t, dir), "--db", db)
	out := mustCLI(t, "runs", "--db", db, "--model", "no-such-model")
	if strings.Contains(out, "yet") || !strings.Contains(out, "No runs match") {
		t.Errorf("runs with an unmatched filter said %q", out)
	}
	if out := mustCLI(t, "runs", "--db", filepath.Join(dir, "empty.db")); !strings.Contains(out, "No runs in the history yet") {
		t.Errorf("runs on an empty history said %q", out)
	}
}
