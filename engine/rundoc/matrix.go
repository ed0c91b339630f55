package rundoc

import (
	"cmp"
	"slices"
)

// Find returns the cell of the given phase, context and concurrency, or nil.
// Prefill cells have concurrency 1.
func (r *Run) Find(p Phase, context, concurrency int) *Cell {
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Phase == p && c.Context == context && c.Concurrency == concurrency {
			return c
		}
	}
	return nil
}

// DecodeAxes returns the contexts and concurrencies present in the decode
// cells (or the plan, when no cell exists yet), ascending, for drawing the
// matrix: rows are contexts, columns concurrencies. It sorts once: n log n
// in the cells, so a report of many contexts is not cubic.
func (r *Run) DecodeAxes() (contexts, concurrency []int) {
	if r.Plan.Burst != BurstOnly { // a burst-only plan has no sustained cell
		for _, v := range r.Plan.Contexts {
			contexts = appendAxis(contexts, v)
		}
		for _, v := range r.Plan.Concurrency {
			concurrency = appendAxis(concurrency, v)
		}
	}
	for _, c := range r.Cells {
		if c.Phase == PhaseDecode {
			contexts = appendAxis(contexts, c.Context)
			concurrency = appendAxis(concurrency, c.Concurrency)
		}
	}
	slices.Sort(contexts)
	slices.Sort(concurrency)
	return slices.Compact(contexts), slices.Compact(concurrency)
}

// appendAxis appends v unless it is the ContextMax of an unresolved plan.
func appendAxis(xs []int, v int) []int {
	if v == ContextMax {
		return xs
	}
	return append(xs, v)
}

// CellIndex finds a run's cells by phase, context and concurrency in
// constant time, for reports that look up every cell of a matrix: with
// Find, which scans the cells, n contexts cost n² lookups of n cells.
type CellIndex map[cellKey]*Cell

type cellKey struct {
	phase                Phase
	context, concurrency int
}

// Index returns the cells of r by phase, context and concurrency. It
// points into r.Cells, so it holds until the cells change; of two cells
// with the same key (which ValidateRun refuses) the first wins, as with
// Find.
func (r *Run) Index() CellIndex {
	x := make(CellIndex, len(r.Cells))
	for i := range r.Cells {
		c := &r.Cells[i]
		k := cellKey{c.Phase, c.Context, c.Concurrency}
		if _, dup := x[k]; !dup {
			x[k] = c
		}
	}
	return x
}

// Find returns the cell with that phase, context and concurrency, or nil.
func (x CellIndex) Find(p Phase, context, concurrency int) *Cell {
	return x[cellKey{p, context, concurrency}]
}

// PrefillCells returns the prefill cells in ascending context order.
func (r *Run) PrefillCells() []Cell {
	var out []Cell
	for _, c := range r.Cells {
		if c.Phase == PhasePrefill {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Cell) int { return cmp.Compare(a.Context, b.Context) })
	return out
}
