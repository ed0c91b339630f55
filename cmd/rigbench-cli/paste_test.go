package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pasted splits a command line as a shell does when the user pastes it
// (bash's own word splitting and quote removal), without running it.
func pasted(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("bash", "-c", "set -- "+line+`; printf '%s\0' "$@"`).Output()
	if err != nil {
		t.Fatalf("bash could not read %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestPrintedResumeCommandWorksAsPrinted: after a dead server, the
// printed `--resume` command dropped `--db FILE`, so pasted as printed it
// failed ("no run has the ID …") and created an empty default history
// (issue 36 item 10). Pasted into a shell, it now continues the run in the
// history it was saved in, from a folder whose name has a space.
func TestPrintedResumeCommandWorksAsPrinted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "my runs", "history.db")
	hs := dyingSim(t, 4)
	code, _, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--db", db, "--no-telemetry", "--contexts", "0", "--concurrency", "1,2",
		"--prefill", "none", "--duration", "5s", "--max-output", "64")
	m := regexp.MustCompile(`run the rest with: (rigbench-cli run .*)$`).FindStringSubmatch(strings.TrimSpace(stderr))
	if code != 1 || m == nil {
		t.Fatalf("exit %d, want 1 with the resume command:\n%s", code, stderr)
	}
	args := pasted(t, m[1])
	if args[0] != "rigbench-cli" {
		t.Fatalf("the command %q does not start with rigbench-cli", m[1])
	}
	// The server is back (the simulator's exit fault fired once).
	hs2 := dyingSim(t, 0)
	for i, a := range args {
		if a == hs.URL {
			args[i] = hs2.URL
		}
	}
	if code, _, stderr := runCLI(t, append(args[1:], "--no-telemetry")...); code != 0 {
		t.Errorf("%q pasted as printed: exit %d\n%s", m[1], code, stderr)
	}
}
