package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/termtext"
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
		window := fmt.Sprintf("%gs", run.Plan.DurationS)
		if run.Plan.Adaptive() {
			window = run.Plan.WindowLabel()
		}
		if run.Plan.MaxOutput > 0 {
			fmt.Fprintf(w, "\nDecode: total tok/s · TTFT (window %s, max output %d)\n", window, run.Plan.MaxOutput)
		} else {
			fmt.Fprintf(w, "\nDecode: total tok/s · TTFT (window %s)\n", window)
		}
		printMatrix(w, run, contexts, conc)
		printRoofline(w, run, contexts, conc)
		printSpec(w, run, contexts, conc)
		// How close RigBench's prediction would have come (METHOD.md,
		// Prediction): the run against the prior, not learned from itself.
		if pr, err := predict.ForRun(run); err == nil {
			if t := pr.Compare(run).Text(pr.Basis()); t != "" {
				fmt.Fprintln(w, t)
			}
		}
		// Cells whose window was mostly spent waiting for first tokens say
		// so in their reason; a table of figures alone would hide it.
		for _, c := range run.Cells {
			if c.Phase == rundoc.PhaseDecode && strings.Contains(c.Reason, "mostly waiting") {
				fmt.Fprintf(w, "note: %s: %s\n", c.Name(), termtext.Safe(c.Reason))
			}
		}
	}
	printBurst(w, run)
	printUnreliable(w, run)
	if pre := run.PrefillCells(); len(pre) > 0 {
		fmt.Fprintln(w, "\nPrefill: prompt tok/s by context")
		// The server's own prompt rate beside RigBench's, where it reports
		// one (issue 28 item 3).
		server := len(rundoc.Used([]rundoc.Figure{rundoc.FigServerPromptTokS}, pre)) > 0
		col := func(c *rundoc.Cell) string {
			if !server {
				return ""
			}
			return fmt.Sprintf(" %-20s", orDash(rundoc.FigServerPromptTokS.Text(c)))
		}
		head := ""
		if server {
			head = fmt.Sprintf(" %-20s", rundoc.FigServerPromptTokS.Label)
		}
		fmt.Fprintf(w, "%-10s %-14s%s %-12s %s\n", "context", rundoc.FigPromptTokS.Label, head, rundoc.FigTTFT.Label, "status")
		for _, c := range pre {
			fmt.Fprintf(w, "%-10s %-14s%s %-12s %s\n", rundoc.ContextLabel(c.Context), orDash(rundoc.FigPromptTokS.TextCI(&c)),
				col(&c), orDash(rundoc.FigTTFT.Text(&c)), rundoc.StatusText(&c))
		}
	}
	if lines := rundoc.EnergyLines(run); len(lines) > 0 {
		fmt.Fprintln(w, "\nEnergy")
		for _, l := range lines {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if rows := report.QualityRows(run); len(rows) > 0 {
		fmt.Fprintln(w, "\nQuality")
		for _, r := range rows {
			fmt.Fprintf(w, "  %s: %s\n", r[0], termtext.Safe(r[1]))
		}
	}
}

// printMatrix prints the decode matrix of run (rows = context, columns =
// concurrency; each cell rundoc.MatrixText, "·" for a cell the run lacks)
// and the queued note under it when a cell queued: a run's results and a
// prediction's (predict, whose cells read "Would run" as figures).
func printMatrix(w io.Writer, run *rundoc.Run, contexts, conc []int) {
	width := 12
	for _, c := range run.Cells {
		width = max(width, len([]rune(rundoc.MatrixText(&c)))+2)
	}
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
			queued = queued || (cell != nil && cell.Status == rundoc.StatusQueued)
			text := rundoc.MatrixText(cell)
			if cell == nil {
				text = "·"
			}
			fmt.Fprint(w, padRight(text, width))
		}
		fmt.Fprintln(w)
	}
	if queued {
		fmt.Fprintln(w, rundoc.QueuedNote)
	}
}

// printUnreliable prints the whole reason of every Unreliable cell (the
// matrix shows its head; METHOD.md: Status, Unreliable) and of every
// Failed one (a stalled or dead server's moment: the matrix says only
// "Failed"), so each cell that is no headline says why where it is shown.
func printUnreliable(w io.Writer, run *rundoc.Run) {
	n := 0
	for _, c := range report.SortedCells(run) {
		var word string
		switch {
		case c.Status == rundoc.StatusUnreliable:
			word = "unreliable"
		case c.Status == rundoc.StatusFailed && c.Reason != "":
			word = "failed"
		default:
			continue
		}
		if n == 0 {
			fmt.Fprintln(w)
		}
		n++
		fmt.Fprintf(w, "%s: %s: %s\n", word, c.Label(), termtext.Safe(c.Reason))
	}
}

// printRoofline prints each decode cell's share of the bandwidth roofline
// (rundoc.FigRoofline) as a matrix like the one above, or why the run has
// none, with the flag that gives what is missing.
func printRoofline(w io.Writer, run *rundoc.Run, contexts, conc []int) {
	f := rundoc.FigRoofline
	if len(rundoc.Used([]rundoc.Figure{f}, run.Cells)) == 0 {
		why := run.Server.Roofline.Why()
		if run.Server.Roofline == nil || why == "" {
			return // a run from before the figure, or no cell ran
		}
		if r := run.Server.Roofline; r != nil && slices.Contains(r.Missing, rundoc.RooflineMissingWeights) && run.Launch == nil && !run.Simulated {
			why += "; give --weights-gib"
		}
		fmt.Fprintf(w, "\n%s: not known: %s\n", f.Title, termtext.Safe(why))
		return
	}
	basis := run.Server.Roofline.Basis()
	if basis != "" {
		basis = " (" + basis + ")"
	}
	fmt.Fprintf(w, "\nDecode: %s of the peak memory bandwidth%s\n", f.Unit, basis)
	printCellMatrix(w, run, contexts, conc, f.WithUnit)
}

// printCellMatrix prints one phrase per decode cell in a matrix like
// printMatrix's, "—" where a cell lacks it. By rundoc.MatrixRoofline's
// rule only a cell that ran, whose tok/s its evidence does not
// contradict, has a figure.
func printCellMatrix(w io.Writer, run *rundoc.Run, contexts, conc []int, text func(*rundoc.Cell) string) {
	cells := map[[2]int]string{}
	width := 8
	for _, c := range contexts {
		for _, n := range conc {
			if cell := run.Find(rundoc.PhaseDecode, c, n); cell != nil && cell.Status.Ran() {
				cells[[2]int{c, n}] = text(cell)
				width = max(width, len([]rune(cells[[2]int{c, n}]))+2)
			}
		}
	}
	fmt.Fprint(w, padRight("context \\ N", 12))
	for _, n := range conc {
		fmt.Fprint(w, padRight(fmt.Sprint(n), width))
	}
	fmt.Fprintln(w)
	for _, c := range contexts {
		fmt.Fprint(w, padRight(rundoc.ContextLabel(c), 12))
		for _, n := range conc {
			fmt.Fprint(w, padRight(orDash(cells[[2]int{c, n}]), width))
		}
		fmt.Fprintln(w)
	}
}

// printSpec prints a speculative run's drafting figures per decode cell
// (METHOD.md: Speculative decoding): the share of drafts accepted, the
// tokens each step yields and the engine's steps/s, and the projected
// tok/s at the plan's reference acceptance length; nothing for a run
// that did not draft.
func printSpec(w io.Writer, run *rundoc.Run, contexts, conc []int) {
	figs := rundoc.Used([]rundoc.Figure{rundoc.FigSpecAcceptRate, rundoc.FigSpecAcceptLength, rundoc.FigStepsPerS, rundoc.FigProjectedTokS}, run.Cells)
	if len(figs) == 0 {
		return
	}
	var head []string
	for _, f := range figs {
		head = append(head, f.Label)
	}
	ref := ""
	if run.Plan.AcceptLenRef > 0 {
		ref = fmt.Sprintf("; projected at %g tokens/step", run.Plan.AcceptLenRef)
	}
	fmt.Fprintf(w, "\nDecode: speculative decoding, %s%s\n", strings.Join(head, " · "), ref)
	printCellMatrix(w, run, contexts, conc, func(c *rundoc.Cell) string {
		var parts []string
		for _, f := range figs {
			parts = append(parts, orDash(f.Text(c)))
		}
		return strings.Join(parts, " · ")
	})
}

// orDash stands in for a figure a cell lacks.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
