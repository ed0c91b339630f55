package results

import (
	"cmp"

	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// column is one column of the measurements table: its header, how a cell
// prints, and how two cells order when the user sorts by it.
type column struct {
	title string
	text  func(c rundoc.Cell) string
	less  func(a, b rundoc.Cell) int
}

func num(v float64, decimals int) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func count(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func byFloat(f func(rundoc.Cell) float64) func(a, b rundoc.Cell) int {
	return func(a, b rundoc.Cell) int { return cmp.Compare(f(a), f(b)) }
}

// columns mirror the reference CSV (METHOD.md names).
var columns = []column{
	{"Phase", func(c rundoc.Cell) string { return string(c.Phase) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Phase, b.Phase) }},
	{"Context", func(c rundoc.Cell) string { return rundoc.ContextLabel(c.Context) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Context, b.Context) }},
	{"N", func(c rundoc.Cell) string { return strconv.Itoa(c.Concurrency) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Concurrency, b.Concurrency) }},
	{"Status", func(c rundoc.Cell) string { return string(c.Status) }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Status, b.Status) }},
	{"Total tok/s", func(c rundoc.Cell) string { return num(tokS(c), 1) }, byFloat(tokS)},
	{"Per-request tok/s", func(c rundoc.Cell) string { return num(c.PerRequestTokS, 1) }, byFloat(func(c rundoc.Cell) float64 { return c.PerRequestTokS })},
	{"TTFT ms", func(c rundoc.Cell) string { return num(c.TTFTMs, 0) }, byFloat(func(c rundoc.Cell) float64 { return c.TTFTMs })},
	{"TBT ms", func(c rundoc.Cell) string { return num(c.TBTMs, 1) }, byFloat(func(c rundoc.Cell) float64 { return c.TBTMs })},
	{"Avg active", func(c rundoc.Cell) string { return num(c.AvgActive, 2) }, byFloat(func(c rundoc.Cell) float64 { return c.AvgActive })},
	{"Requests", func(c rundoc.Cell) string { return count(c.CompletedRequests) }, byFloat(func(c rundoc.Cell) float64 { return float64(c.CompletedRequests) })},
	{"Output tokens", func(c rundoc.Cell) string { return count(c.OutputTokens) }, byFloat(func(c rundoc.Cell) float64 { return float64(c.OutputTokens) })},
	{"J/token", func(c rundoc.Cell) string { return num(c.EnergyJPerToken, 3) }, byFloat(func(c rundoc.Cell) float64 { return c.EnergyJPerToken })},
	{"Reason", func(c rundoc.Cell) string { return c.Reason }, func(a, b rundoc.Cell) int { return cmp.Compare(a.Reason, b.Reason) }},
}

// tokS is the cell's headline rate: prompt tok/s for prefill cells, total
// output tok/s for decode cells (the reference CSV's total_tok_s column
// holds both the same way).
func tokS(c rundoc.Cell) float64 {
	if c.Phase == rundoc.PhasePrefill {
		return c.PromptTokS
	}
	return c.TotalTokS
}

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
