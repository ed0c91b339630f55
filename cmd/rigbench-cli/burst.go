package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// boolText is a plan flag that may be given bare (--burst, read as
// "true") or with a value (--burst=only): its text goes to
// rundoc.PlanInput as typed, which reads it as the app's checkbox is read.
type boolText struct{ text string }

func (b *boolText) String() string {
	if b == nil {
		return ""
	}
	return b.text
}

func (b *boolText) Set(s string) error { b.text = s; return nil }

// IsBoolFlag lets the flag be given without a value.
func (b *boolText) IsBoolFlag() bool { return true }

// registerBurst declares --burst, --request-count and --burst-limit
// (METHOD.md: Burst cells).
func registerBurst(fs *flag.FlagSet) {
	fs.Var(&boolText{}, string(rundoc.FieldBurst), "after the sustained matrix, run a burst cell for every decode cell: "+
		"its own warm-up, then exactly K requests (--request-count) with at most N in flight, each to its last token; "+
		"end-to-end latency p50/p90/p99, TTFT, requests/s and tok/s over the burst (--burst=only: instead of the matrix)")
	fs.String(string(rundoc.FieldRequestCount), "", fmt.Sprintf("`K`, the measured requests of every burst cell (default %d × its concurrency N); "+
		"without --burst, burst cells run instead of the sustained windows", rundoc.BurstPerConcurrency))
	fs.String(string(rundoc.FieldBurstLimit), "", fmt.Sprintf("the longest a burst cell's requests may take, in card time: a `DURATION` such as 30m "+
		"(default %s); a burst that needs longer fails and says so", rundoc.ShortDuration(rundoc.DefaultBurstLimit)))
}

// printBurst prints the burst cells apart from the sustained matrix, one
// row each with rundoc.BurstFigures and their ±, or nothing when the run
// has none.
func printBurst(w io.Writer, run *rundoc.Run) {
	cells := run.BurstCells()
	if len(cells) == 0 {
		return
	}
	fmt.Fprintf(w, "\nBurst: K requests at concurrency N, each to its last token (max output %d; not part of the sustained matrix)\n", run.Plan.MaxOutput)
	rows := [][]string{rundoc.BurstHeader()}
	for i := range cells {
		row := rundoc.BurstRow(&cells[i])
		for j := range row {
			row[j] = orDash(row[j])
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for j, s := range r {
			widths[j] = max(widths[j], len([]rune(s)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for j, s := range r {
			b.WriteString(padRight(s, widths[j]+2))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// burstDetail is a finished burst cell's progress line: "Valid: latency
// p50 785 ± 3.7 ms, 5.03 req/s, 322.1 tok/s, 16 of 16 requests".
func burstDetail(c *rundoc.Cell) string {
	return fmt.Sprintf("%s: latency p50 %s, %s, %s, %d of %d requests", c.Status, rundoc.FigLatency.WithUnitCI(c),
		rundoc.FigRequestsPerS.WithUnitCI(c), rundoc.FigBurstTokS.WithUnitCI(c), c.CompletedRequests, c.RequestCount)
}
