package main

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// Issue 24 item 15: a typo names the flag meant, in a few lines, with
// two dashes, and no Go usage dump follows.
func TestFlagTypoSaysDidYouMean(t *testing.T) {
	for _, tc := range []struct{ cmd, typo, want string }{
		{"run", "--contxts", "--contexts"},
		{"tune", "--objectve", "--objective"},
		{"export", "--fromat", "--format"},
	} {
		code, _, stderr := runCLI(t, tc.cmd, tc.typo, "1K")
		if code != 2 {
			t.Errorf("%s %s: exit %d, want 2", tc.cmd, tc.typo, code)
		}
		if !strings.Contains(stderr, "did you mean "+tc.want+"?") || !strings.Contains(stderr, "unknown flag "+tc.typo) {
			t.Errorf("%s %s said:\n%s\nwant the flag named and %s suggested", tc.cmd, tc.typo, stderr, tc.want)
		}
		if n := strings.Count(stderr, "\n"); n > 4 || strings.Contains(stderr, "Usage of") || strings.Contains(stderr, "  -") {
			t.Errorf("%s %s printed %d lines (a usage dump?):\n%s", tc.cmd, tc.typo, n, stderr)
		}
	}
	// A word that is no flag's typo gets no suggestion.
	if _, _, stderr := runCLI(t, "run", "--zzzzzzzzzz"); strings.Contains(stderr, "did you mean") {
		t.Errorf("a far-off flag got a suggestion:\n%s", stderr)
	}
}

// `run --help` starts with its one-line synopsis and its summary, and
// lists flags with two dashes.
func TestRunHelpHasSynopsis(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--help")
	out := stdout + stderr
	if code != 0 {
		t.Errorf("run --help exit %d", code)
	}
	first, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(first, "usage: rigbench-cli run ") {
		t.Errorf("run --help starts %q, want the synopsis", first)
	}
	if !strings.Contains(out, "\n  --contexts ") || strings.Contains(out, "\n  -contexts") {
		t.Errorf("run --help lists flags with one dash or not at all:\n%s", out)
	}
}

// `sim --help` lists every flag the simulator acts on, the llama-server
// ones and the faults included.
func TestSimHelpListsEveryFlag(t *testing.T) {
	_, stdout, _ := runCLI(t, "sim", "--help")
	for _, name := range append(sim.FlagNames(), "--personality", "--ctx-size", "--parallel", "--kv-unified", "--fault-close-idle", "--addr") {
		if !strings.Contains(stdout, name+" ") && !strings.HasSuffix(strings.TrimSpace(stdout), name) && !strings.Contains(stdout, name+"\n") && !strings.Contains(stdout, name+",") {
			t.Errorf("sim --help does not list %s:\n%s", name, stdout)
		}
	}
}

// Issue 24 item 12: one cell is "1 cell".
func TestPlanLineCountsOneCell(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b)
	p.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &rundoc.Run{}, Total: 1})
	if !strings.Contains(b.String(), "plan: 1 cell, estimated") {
		t.Errorf("plan line %q", b.String())
	}
}
