package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --resume with other base flags, dimensions or workload than the sweep
// was started with is refused, naming the difference, instead of skipping
// variants measured under other flags as if they were these.
func TestResumeWithOtherFlagsIsRefused(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	const id = "0123abcd"
	sweep := func(contexts, vary string, base ...string) []string {
		args := []string{"tune", "--demo", "--sim-speed", "50", "--vary", vary, "--contexts", contexts, "--concurrency", "1",
			"--duration", "5s", "--max-output", "16", "--no-telemetry", "--db", db, "--resume", id}
		return append(append(args, "--"), base...)
	}
	mustCLI(t, sweep("1K", "kv-cache-dtype=auto,fp8", "--max-num-seqs", "64")...)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"base flags", sweep("1K", "kv-cache-dtype=auto,fp8", "--max-num-seqs", "1"), "--max-num-seqs 64"},
		{"workload", sweep("2K", "kv-cache-dtype=auto,fp8", "--max-num-seqs", "64"), "contexts"},
		{"dimensions", sweep("1K", "kv-cache-dtype=fp8", "--max-num-seqs", "64"), "varies"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code == 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--resume "+id) {
				t.Errorf("exit %d, stderr %q: want a refusal naming %q", code, stderr, c.want)
			}
		})
	}
	// The kept spec is still the one the runs were measured with.
	code, stdout, stderr := runCLI(t, "tune", "--resume", id, "--db", db, "--no-telemetry")
	if code != 0 || !strings.Contains(stderr, "already measured") || !strings.Contains(stdout, "Verdict") {
		t.Errorf("--resume %s alone: exit %d\n%s\n%s", id, code, stdout, stderr)
	}
}
