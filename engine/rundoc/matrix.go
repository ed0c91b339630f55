package rundoc

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
// matrix: rows are contexts, columns concurrencies.
func (r *Run) DecodeAxes() (contexts, concurrency []int) {
	for _, v := range r.Plan.Contexts {
		contexts = addSorted(contexts, v)
	}
	for _, v := range r.Plan.Concurrency {
		concurrency = addSorted(concurrency, v)
	}
	for _, c := range r.Cells {
		if c.Phase != PhaseDecode {
			continue
		}
		contexts = addSorted(contexts, c.Context)
		concurrency = addSorted(concurrency, c.Concurrency)
	}
	return contexts, concurrency
}

// PrefillCells returns the prefill cells in ascending context order.
func (r *Run) PrefillCells() []Cell {
	var out []Cell
	for _, c := range r.Cells {
		if c.Phase == PhasePrefill {
			out = append(out, c)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Context < out[j-1].Context; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// addSorted inserts v into ascending xs unless present. ContextMax entries
// of an unresolved plan are skipped.
func addSorted(xs []int, v int) []int {
	if v == ContextMax {
		return xs
	}
	i := 0
	for i < len(xs) && xs[i] < v {
		i++
	}
	if i < len(xs) && xs[i] == v {
		return xs
	}
	xs = append(xs, 0)
	copy(xs[i+1:], xs[i:])
	xs[i] = v
	return xs
}
