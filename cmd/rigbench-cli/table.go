package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// printResults prints the decode matrix (rows = context, columns =
// concurrency; each cell total tok/s and TTFT, or its status) and the
// prefill table, as on the reference page.
func printResults(w io.Writer, run *rundoc.Run) {
	if run.Simulated {
		fmt.Fprintln(w, "\nSIMULATED SERVER (demo): these figures come from RigBench's simulator, not a real card.")
	}
	contexts, conc := run.DecodeAxes()
	if len(contexts) > 0 && len(conc) > 0 {
		// An imported measurements CSV records no max output: say nothing
		// rather than "max output 0".
		if run.Plan.MaxOutput > 0 {
			fmt.Fprintf(w, "\nDecode: total tok/s · TTFT (window %gs, max output %d)\n", run.Plan.DurationS, run.Plan.MaxOutput)
		} else {
			fmt.Fprintf(w, "\nDecode: total tok/s · TTFT (window %gs)\n", run.Plan.DurationS)
		}
		const width = 18
		fmt.Fprint(w, padRight("context \\ N", 12))
		for _, n := range conc {
			fmt.Fprint(w, padRight(fmt.Sprint(n), width))
		}
		fmt.Fprintln(w)
		queued := false
		for _, c := range contexts {
			fmt.Fprint(w, padRight(rundoc.ContextLabel(c), 12))
			for _, n := range conc {
				cell := run.Find(rundoc.PhaseDecode, c, n)
				text := matrixText(cell)
				if cell != nil && cell.Status == rundoc.StatusQueued {
					queued = true
				}
				fmt.Fprint(w, padRight(text, width))
			}
			fmt.Fprintln(w)
		}
		if queued {
			fmt.Fprintln(w, "* Requests queued: the server did not run all N requests at once.")
		}
		// Cells whose window was mostly spent waiting for first tokens say
		// so in their reason; a table of figures alone would hide it.
		for _, c := range run.Cells {
			if c.Phase == rundoc.PhaseDecode && strings.Contains(c.Reason, "mostly waiting") {
				fmt.Fprintf(w, "note: %s×%d: %s\n", rundoc.ContextLabel(c.Context), c.Concurrency, c.Reason)
			}
		}
	}
	if pre := run.PrefillCells(); len(pre) > 0 {
		fmt.Fprintln(w, "\nPrefill: prompt tok/s by context")
		fmt.Fprintf(w, "%-10s %-14s %-12s %s\n", "context", "prompt tok/s", "TTFT ms", "status")
		for _, c := range pre {
			if c.Status.Ran() {
				fmt.Fprintf(w, "%-10s %-14.0f %-12.0f %s\n", rundoc.ContextLabel(c.Context), c.PromptTokS, c.TTFTMs, c.Status)
			} else {
				fmt.Fprintf(w, "%-10s %-14s %-12s %s\n", rundoc.ContextLabel(c.Context), "—", "—", c.Status)
			}
		}
	}
}

// matrixText is one matrix cell: "890.6 · 2368ms", a starred value for
// queued cells, or a short status.
func matrixText(c *rundoc.Cell) string {
	switch {
	case c == nil:
		return "·"
	case c.Status.Ran():
		s := fmt.Sprintf("%.1f · %.0fms", c.TotalTokS, c.TTFTMs)
		if c.Status == rundoc.StatusQueued {
			s += "*"
		}
		return s
	case c.Status == rundoc.StatusOverCapacity:
		return "over capacity"
	case c.Status == rundoc.StatusExceedsLength:
		return "too long"
	default:
		return strings.ToLower(string(c.Status))
	}
}
