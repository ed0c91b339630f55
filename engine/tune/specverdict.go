package tune

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// drafting words what speculative decoding did in a sweep whose variants
// drafted (METHOD.md: Speculative decoding), at the objective's cell (the
// first decode cell every measured variant ran, for an objective over
// cells): each drafting variant's acceptance and its engine's steps/s
// beside the base's, and whether the best variant's gain came from its
// engine or from acceptance on this prompt. A plain launch's steps/s is
// its total tok/s (one token per sequence-step). "" when no variant
// drafted.
func (r *Result) drafting() string {
	ctx, n, ok := r.draftCell()
	if !ok {
		return ""
	}
	cell := func(v VariantResult) *rundoc.Cell {
		if v.Status != Measured || v.Run == nil {
			return nil
		}
		c := v.Run.Find(rundoc.PhaseDecode, ctx, n)
		if c == nil || !c.Status.Ran() || c.TotalTokS <= 0 {
			return nil
		}
		return c
	}
	var parts []string
	for _, v := range r.Variants {
		if c := cell(v); c != nil && c.Speculative() {
			parts = append(parts, fmt.Sprintf("`%s` %s", v.Variant.Label(), rundoc.SpecText(c)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	s := fmt.Sprintf("At %s, %s", rundoc.CellName(ctx, n), strings.Join(parts, "; "))
	base := cell(r.Variants[0])
	if r.Best <= 0 || base == nil {
		return s + "."
	}
	best := cell(r.Variants[r.Best])
	if best == nil || !best.Speculative() || base.Speculative() {
		return s + "."
	}
	bs, bci := steps(base)
	ws, wci := steps(best)
	switch {
	case ws > bs && ws-bs > math.Hypot(bci, wci):
		s += fmt.Sprintf(": its engine also steps faster than your flags' %s steps/s, so the gain is not only this prompt's acceptance", rundoc.FigStepsPerS.Format(bs))
	default:
		s += fmt.Sprintf(": its engine steps no faster than your flags' %s steps/s, so the gain is its acceptance on this prompt (text that drafts worse gains less)", rundoc.FigStepsPerS.Format(bs))
	}
	return s + "."
}

// steps is a cell's engine speed in sequence-steps per second with its
// ± : StepsPerS for a drafting cell, total tok/s for a plain one.
func steps(c *rundoc.Cell) (float64, float64) {
	if c.Speculative() && c.StepsPerS > 0 {
		return c.StepsPerS, c.StepsPerSCI95
	}
	return c.TotalTokS, c.TotalTokSCI95
}

// draftCell is the cell the drafting sentence speaks of: the objective's
// own, else the first decode cell of the first measured run.
func (r *Result) draftCell() (ctx, n int, ok bool) {
	o := r.Spec.Objective
	if o.Kind.cellObjective() {
		return o.Context, o.Concurrency, true
	}
	for _, v := range r.Variants {
		if v.Run == nil {
			continue
		}
		for _, c := range v.Run.Cells {
			if c.Phase == rundoc.PhaseDecode && c.Status.Ran() {
				return c.Context, c.Concurrency, true
			}
		}
	}
	return 0, 0, false
}
