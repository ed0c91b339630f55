package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/termtext"
)

func init() {
	register(&command{name: "advise", usage: "advise ID [--db FILE]",
		summary: "Say what limits each decode cell of a run in the history, and which vLLM flag to try, with RigBench's prediction.",
		run:     runAdvise})
}

func runAdvise(ctx context.Context, e *env, args []string) error {
	db, r, err := runArg(ctx, e, "advise", args)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintf(e.stdout, "Run %s  %s\n", termtext.Safe(r.UUID), termtext.Safe(r.Title()))
	if !printDiagnosis(e.stdout, r) {
		fmt.Fprintln(e.stdout, "\nNo limit found in this run's evidence, so no advice.")
	}
	return nil
}

// printDiagnosis prints each decode cell's bottleneck with its evidence
// and the advice (diagnose), and reports whether there was anything to
// print. It prints nothing for a run without either.
func printDiagnosis(w io.Writer, run *rundoc.Run) bool {
	limits, advice := diagnose.Run(run), diagnose.Advise(run)
	if len(limits) > 0 {
		fmt.Fprintln(w, "\nBottlenecks")
		for _, b := range limits {
			fmt.Fprintln(w, "  "+termtext.Safe(b.Text()))
		}
	}
	if len(advice) > 0 {
		fmt.Fprintln(w, "\nAdvice (predicted by RigBench's capacity model; try it with `rigbench-cli tune`)")
		for _, a := range advice {
			fmt.Fprintln(w, "  "+termtext.Safe(a.Text()))
		}
	}
	return len(limits) > 0 || len(advice) > 0
}
