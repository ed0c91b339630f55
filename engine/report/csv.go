package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// CSVColumns are the columns of the measurements CSV, in order. They are the
// columns of the published reference runs (shared/reference/*.csv), so a CSV
// written here can be read back by ReadReferenceCSV and compared with them.
//
// A prefill row puts prompt tok/s (METHOD.md: prompt_tokens / TTFT) in
// total_tok_s, as the reference files do.
var CSVColumns = []string{
	"phase", "context_tokens", "context_label", "concurrency", "status",
	"total_tok_s", "per_request_tok_s", "ttft_ms", "tbt_ms", "avg_active",
	"completed_requests", "output_tokens", "measured_s",
}

// SimulatedColumn is the column a simulated run's CSV adds after
// CSVColumns, saying "yes" on every row: simulated runs are labelled as
// such everywhere, and a file keeps its label through a spreadsheet (a
// row copied out still says it) and back through ReadReferenceCSV. A
// measured run's CSV leaves the column out, so it keeps exactly the
// columns of the published reference runs.
const SimulatedColumn = "simulated"

// WriteCSV writes every cell of r as one row of CSVColumns (and
// SimulatedColumn for a simulated run): prefill cells first by context,
// then decode cells by context and concurrency. A figure that was not
// measured is an empty field, never a 0. The number of decimals per column
// follows the reference files (tok/s and TBT 0.1, TTFT whole milliseconds,
// avg_active 0.01, seconds 0.1).
func WriteCSV(w io.Writer, r *rundoc.Run) error {
	cw := csv.NewWriter(w)
	header := CSVColumns
	if r.Simulated {
		header = append(slices.Clip(CSVColumns), SimulatedColumn)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range SortedCells(r) {
		row := csvRow(c)
		if r.Simulated {
			row = append(row, "yes")
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvRow renders one cell as the fields of CSVColumns.
func csvRow(c rundoc.Cell) []string {
	tokS := c.TotalTokS
	if c.Phase == rundoc.PhasePrefill {
		tokS = c.PromptTokS
	}
	// output_tokens is a count: 0 is a real figure when a window ran and
	// produced nothing (the runtime "Over capacity" case), so it is written
	// whenever a window was measured.
	outTok := ""
	if c.OutputTokens > 0 || c.MeasuredS > 0 {
		outTok = strconv.Itoa(c.OutputTokens)
	}
	return []string{
		string(c.Phase),
		strconv.Itoa(c.Context),
		rundoc.ContextLabel(c.Context),
		strconv.Itoa(c.Concurrency),
		string(c.Status),
		fixed(tokS, 1),
		fixed(c.PerRequestTokS, 1),
		fixed(c.TTFTMs, 0),
		fixed(c.TBTMs, 1),
		fixed(c.AvgActive, 2),
		count(c.CompletedRequests),
		outTok,
		fixed(c.MeasuredS, 1),
	}
}

// SortedCells returns a copy of r's cells in report order: prefill cells by
// ascending context, then decode cells by context and concurrency (the
// order of METHOD.md's matrix, rows = context).
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
	if p == rundoc.PhasePrefill {
		return 0
	}
	return 1
}

// fixed formats v with the given decimals, or "" when v is 0 (not measured).
func fixed(v float64, decimals int) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// count formats a positive count, or "" when it is 0 (not measured).
func count(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}
