package report

import (
	"cmp"
	"encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// CSVColumns are the columns of the measurements CSV, in order: the cell's
// identity, then rundoc.CSVFigures. They are the columns of the published
// reference runs (shared/reference/*.csv), so a CSV written here can be read
// back by ReadReferenceCSV and compared with them.
//
// A prefill row puts prompt tok/s (METHOD.md: prompt_tokens / TTFT) in
// total_tok_s, as the reference files do (rundoc.FigRate).
var CSVColumns = csvColumns()

func csvColumns() []string {
	cols := []string{"phase", "context_tokens", "context_label", "concurrency", "status"}
	for _, f := range rundoc.CSVFigures {
		cols = append(cols, f.Key)
	}
	return cols
}

// SimulatedColumn is the column a simulated run's CSV adds after
// CSVColumns (and the half-widths of rundoc.CIFigures a run with
// uncertainty adds, each "<figure>_ci95", and rundoc.CSVExtraFigures where
// cells have them), saying "yes" on every row: simulated runs are labelled as
// such everywhere, and a file keeps its label through a spreadsheet (a
// row copied out still says it) and back through ReadReferenceCSV. A
// measured run's CSV leaves the column out, so it keeps exactly the
// columns of the published reference runs.
const SimulatedColumn = "simulated"

// ReasonColumn is the column a run's CSV adds, last, when some cell is
// Unreliable: each row's reason (rundoc.Cell.Reason), so the cell says why
// its figure is not to be trusted in a spreadsheet too, and
// ReadReferenceCSV keeps it.
const ReasonColumn = "reason"

// WriteCSV writes every cell of r as one row of CSVColumns (and
// SimulatedColumn for a simulated run): prefill cells first by context,
// then decode cells by context and concurrency. A figure that was not
// measured is an empty field, never a 0; decimals come from the figure
// registry (rundoc.Figure), which follows the reference files.
func WriteCSV(w io.Writer, r *rundoc.Run) error {
	cw := csv.NewWriter(w)
	ci := slices.Concat(rundoc.Used(slices.Concat(rundoc.CIFigures, rundoc.CSVExtraFigures), r.Cells), csvBurstColumns(r))
	header := slices.Clip(CSVColumns)
	for _, f := range ci {
		header = append(header, f.Key)
	}
	if r.Simulated {
		header = append(header, SimulatedColumn)
	}
	// An Unreliable cell's row says why in ReasonColumn; a run without one
	// keeps the reference runs' columns.
	reasons := slices.ContainsFunc(r.Cells, func(c rundoc.Cell) bool { return c.Status == rundoc.StatusUnreliable })
	qual := qualityCSV(r)
	if qual != nil {
		header = append(header, QualityColumns...)
	}
	if reasons {
		header = append(header, ReasonColumn)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range SortedCells(r) {
		row := csvRow(c)
		for _, f := range ci {
			row = append(row, f.Text(&c))
		}
		if r.Simulated {
			row = append(row, "yes")
		}
		row = append(row, qual...)
		if reasons {
			row = append(row, c.Reason)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRow renders one cell as the fields of CSVColumns, each figure with
// the registry's decimals; a figure the cell lacks is an empty field.
func csvRow(c rundoc.Cell) []string {
	row := []string{
		string(c.Phase),
		strconv.Itoa(c.Context),
		rundoc.ContextLabel(c.Context),
		strconv.Itoa(c.Concurrency),
		string(c.Status),
	}
	for _, f := range rundoc.CSVFigures {
		row = append(row, f.Text(&c))
	}
	return row
}

// SortedCells returns a copy of r's cells in report order: prefill cells by
// ascending context, then decode cells by context and concurrency (the
// order of METHOD.md's matrix, rows = context), then burst cells so.
func SortedCells(r *rundoc.Run) []rundoc.Cell {
	cells := slices.Clone(r.Cells)
	slices.SortStableFunc(cells, func(a, b rundoc.Cell) int {
		return cmp.Or(
			cmp.Compare(phaseRank(a.Phase), phaseRank(b.Phase)),
			cmp.Compare(a.Context, b.Context),
			cmp.Compare(a.Concurrency, b.Concurrency),
		)
	})
	return cells
}

func phaseRank(p rundoc.Phase) int {
	switch p {
	case rundoc.PhasePrefill:
		return 0
	case rundoc.PhaseBurst:
		return 2 // burst cells after the sustained matrix, as they run
	}
	return 1
}
