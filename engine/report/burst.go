package report

import (
	"bufio"
	"fmt"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Burst cells in the reports (METHOD.md: Burst cells): each report gives
// them a table of their own, with their own figures (rundoc.BurstFigures),
// apart from the sustained matrix and the table of all measurements, whose
// columns mean a window's figures.

// SustainedCells is SortedCells without the burst cells: the rows of a
// table of all measurements.
func SustainedCells(r *rundoc.Run) []rundoc.Cell {
	return slices.DeleteFunc(SortedCells(r), func(c rundoc.Cell) bool { return c.Phase == rundoc.PhaseBurst })
}

// csvBurstColumns are the columns a run's CSV adds for its burst cells
// (rundoc.CSVBurstFigures), none when it has none.
func csvBurstColumns(r *rundoc.Run) []rundoc.Figure {
	if len(r.BurstCells()) == 0 {
		return nil
	}
	return rundoc.CSVBurstFigures
}

// mdBurst is the Markdown report's burst table, nothing when the run has
// no burst cell; a cell's reason follows the table.
func mdBurst(b *bufio.Writer, r *rundoc.Run) {
	cells := r.BurstCells()
	if len(cells) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Burst: K requests at concurrency N, each to its last token\n\n"+
		"Each cell sends its own warm-up, then exactly K requests (max output %d) with at most N in flight; latency is end to end. "+
		"Not part of the sustained matrix.\n\n", r.Plan.MaxOutput)
	head := rundoc.BurstHeader()
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
	for i := range cells {
		row := rundoc.BurstRow(&cells[i])
		for j := range row {
			row[j] = dashIfEmpty(mdText(row[j]))
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	for _, c := range cells {
		if c.Reason != "" {
			fmt.Fprintf(b, "\n- %s: %s\n", c.Name(), mdText(c.Reason))
		}
	}
}

// burstRows are the HTML report's burst table rows of r.
func burstRows(r *rundoc.Run) [][]string {
	var rows [][]string
	for _, c := range r.BurstCells() {
		rows = append(rows, rundoc.BurstRow(&c))
	}
	return rows
}
