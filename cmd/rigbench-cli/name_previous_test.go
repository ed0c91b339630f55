package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 41 minor 14, through the CLI and the history: a second demo run of
// the model with one flag more is named by that flag first, where it came
// fourth and was counted as "+1 more" before; the first run, with no run
// of the model before it, keeps the usual order.
func TestRunNameLeadsWithWhatChangedSinceThePreviousRun(t *testing.T) {
	if testing.Short() {
		t.Skip("two demo runs (a few seconds): skipped with -short (make test runs it)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	flags := []string{"--max-num-seqs", "32", "--gpu-memory-utilization", "0.85", "--max-model-len", "32768"}
	run := func(json string, extra ...string) string {
		args := []string{"run", "--demo", "--sim-speed", "20", "--contexts", "0", "--concurrency", "1", "--prefill", "none",
			"--duration", "5s", "--max-output", "16", "--no-telemetry", "--db", db, "--json", json, "--"}
		mustCLI(t, append(append(args, flags...), extra...)...)
		return readRunFile(t, json).Name
	}
	first := run(filepath.Join(dir, "1.json"))
	if !strings.HasPrefix(first, "a1-4b-fp8 · max-num-seqs 32, ") {
		t.Errorf("first run's name %q: want the usual order", first)
	}
	second := run(filepath.Join(dir, "2.json"), "--kv-cache-dtype", "fp8")
	if !strings.HasPrefix(second, "a1-4b-fp8 · kv-cache-dtype fp8, ") {
		t.Errorf("second run's name %q: want the flag the first run lacked first", second)
	}
}
