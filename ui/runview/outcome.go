package runview

// A finished run's outcome line: what was measured and kept, and why a
// run that stopped early stopped.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/wording"
)

// measuredCells counts the cells of r that ran.
func measuredCells(r *rundoc.Run) int {
	n := 0
	for _, c := range r.Cells {
		if c.Status.Ran() {
			n++
		}
	}
	return n
}

// cells is "1 cell" or "n cells".
func cells(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

// pick is a when cond holds, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// oneLine joins the lines of a message that joins several errors (the
// same one per request, often), each distinct line once.
func oneLine(s string) string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// outcome is the one-line summary of a finished run and the detail under
// it: a plain sentence first, the runner's own words (which name the
// request and the URL) second. saved says whether the run is in the
// history; the cells of one that is not are not "kept".
func outcome(r *rundoc.Run, err error, saved bool) (line, detail string) {
	ran := measuredCells(r)
	one := ran == 1
	measured := fmt.Sprintf("the %d measured %s", ran, pick(one, "cell", "cells"))
	kept := measured + pick(one, " is kept", " are kept")
	if !saved {
		kept = measured + pick(one, " was", " were") + " not saved to the history: use Export to keep " + pick(one, "it", "them")
	}
	why := ""
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		why = wording.Sentence(oneLine(err.Error()))
	case r.Error != "":
		why = wording.Sentence(oneLine(r.Error))
	}
	switch r.Status {
	case rundoc.RunComplete:
		if !saved && ran > 0 {
			return fmt.Sprintf("Run complete: %s measured, not saved to the history: use Export to keep it.", cells(ran)), ""
		}
		return fmt.Sprintf("Run complete: %s measured.", cells(ran)), ""
	case rundoc.RunCancelled:
		if ran == 0 {
			return "Run cancelled before any cell was measured.", ""
		}
		return fmt.Sprintf("Run cancelled: %s.", kept), ""
	}
	stopped := "The run stopped"
	var gone *bench.ServerGoneError
	if errors.As(err, &gone) {
		// The engine's sentence says where it died and what was kept;
		// the advice is the app's own.
		what := "stopped answering"
		var st *bench.StalledError
		if errors.As(gone, &st) {
			what = "stopped producing tokens"
		}
		return fmt.Sprintf("The server %s; %s.", what, kept),
			wording.Sentence(oneLine(gone.Stopped()) + "; start the server again and press Resume in Results to measure the rest")
	}
	var failures *bench.FailuresError
	if errors.As(err, &failures) {
		stopped = "The run stopped because cells kept failing"
		if failures.Unreachable {
			stopped = "The server stopped answering"
		}
		// The runner's message repeats each request's error; the last
		// failed cell's first line says it once.
		for i := len(r.Cells) - 1; i >= 0; i-- {
			if c := r.Cells[i]; c.Status == rundoc.StatusFailed && c.Reason != "" {
				why = "Last error: " + wording.Sentence(strings.SplitN(c.Reason, "\n", 2)[0])
				break
			}
		}
	} else if ran == 0 {
		return "The run failed before measuring anything.", why
	}
	if ran == 0 {
		return stopped + " before any cell was measured.", why
	}
	return fmt.Sprintf("%s; %s.", stopped, kept), why
}
