package results

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// column is one column of the measurements table: its header, how a cell
// prints, and how two cells order when the user sorts by it.
type column struct {
	title string
	text  func(c rundoc.Cell) string
	less  func(a, b rundoc.Cell) int
}

func byFloat(f func(rundoc.Cell) float64) func(a, b rundoc.Cell) int {
	return func(a, b rundoc.Cell) int { return cmp.Compare(f(a), f(b)) }
}

// figureColumn is a column of a registry figure: its title, its text with
// the registry's decimals, and sorting by its value (cells without it
// first).
func figureColumn(f rundoc.Figure) column {
	return column{f.Title, func(c rundoc.Cell) string { return f.TextCI(&c) }, byFloat(func(c rundoc.Cell) float64 {
		v, _ := f.Value(&c)
		return v
	})}
}

// columns are the cell's identity, the registry's measurement figures
// (rundoc.MeasurementFigures: the same columns, units and decimals as the
// CSV and the reports), then the reason of a failure.
var columns = func() []column {
	cols := []column{
		{"Phase", func(c rundoc.Cell) string { return string(c.Phase) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Phase, b.Phase) }},
		{"Context", func(c rundoc.Cell) string { return rundoc.ContextLabel(c.Context) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Context, b.Context) }},
		{"N", func(c rundoc.Cell) string { return strconv.Itoa(c.Concurrency) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Concurrency, b.Concurrency) }},
		{"Status", func(c rundoc.Cell) string { return rundoc.StatusText(&c) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Status, b.Status) }},
	}
	for _, f := range rundoc.MeasurementFigures {
		col := figureColumn(f)
		if strings.HasPrefix(f.Key, "ttft") {
			// A TTFT quantile that falls on a request with no first token
			// in the window is absent (METHOD.md): said, not left blank.
			text := col.text
			col.text = func(c rundoc.Cell) string {
				if t := text(c); t != "" || c.NeverStarted == 0 || !c.Status.Ran() {
					return t
				}
				return NoFirstToken
			}
		}
		if f.Key == rundoc.FigCompleted.Key {
			// A decode window of long answers often ends before any
			// request does: that is 0 requests, not a missing figure.
			col.text = func(c rundoc.Cell) string {
				if c.Status.Ran() {
					return strconv.Itoa(c.CompletedRequests)
				}
				return ""
			}
		}
		cols = append(cols, col)
	}
	return append(cols, column{"Reason", func(c rundoc.Cell) string { return c.Reason }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Reason, b.Reason) }})
}()

// NoFirstToken stands for a TTFT figure that falls on requests that got
// no first token within the window.
const NoFirstToken = "> window"

// TableNote explains what the measurements table leaves out, under it.
const TableNote = "± is the 95% half-width; a figure without one had too little data to say (fewer than 5 requests, or streams that never all started). " +
	NoFirstToken + ": the quantile falls on requests that got no first token within the window."

func headerText(i, sortCol int, desc bool) string {
	t := columns[i].title
	if i == sortCol {
		if desc {
			return t + " ▼"
		}
		return t + " ▲"
	}
	return t
}
