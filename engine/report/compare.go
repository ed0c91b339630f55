package report

import (
	"errors"
	"fmt"
	"math"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// figureOf reads f from a cell of a comparison; ok is false for cells that
// did not run (METHOD.md: only Valid and Requests queued cells have
// figures) or did not measure it.
func figureOf(f rundoc.Figure, c *rundoc.Cell) (v float64, ok bool) {
	if c == nil || !c.Status.Ran() {
		return 0, false
	}
	v, ok = f.Value(c)
	return v, ok && v > 0 && !math.IsInf(v, 0)
}

// Entry is one run's side of a compared cell.
type Entry struct {
	Status rundoc.Status // "" when the run has no such cell
	Value  float64
	Has    bool // Value was measured
	// ChangePct is (Value − baseline) / baseline × 100, against the first
	// run; HasChange is false for the baseline itself or when either side
	// has no figure.
	ChangePct float64
	HasChange bool
	// CI95 is the half-width of Value's 95% interval (0: unknown).
	// Significant is false when the change from the baseline is within
	// the two runs' combined uncertainty (rundoc.Significant), which
	// ChangeText then says instead of a percentage.
	CI95        float64
	Significant bool
	// Unreliable is the head of the reason (rundoc.UnreliableHead) why
	// this run's cell, or the baseline's, has no figure to compare: the
	// cell's own evidence contradicted it. ChangeText then says "cannot
	// compare: " and it.
	Unreliable string
}

// Row is one (phase, context, concurrency) cell across the runs.
type Row struct {
	Context, Concurrency int
	Entries              []Entry
}

// Table is the comparison of one figure over every cell that at least one
// run measured, in matrix order (context, then concurrency).
type Table struct {
	Figure rundoc.Figure
	Rows   []Row
}

// Compare builds the per-cell comparison of runs against runs[0] for a
// figure. Cells that no run measured are left out; cells one run lacks
// keep that run's status so the reader sees why.
func Compare(runs []*rundoc.Run, f rundoc.Figure) Table {
	t := Table{Figure: f}
	// A figure of both phases (TTFT) is compared over the decode matrix.
	phase := f.Phase
	if phase == "" {
		phase = rundoc.PhaseDecode
	}
	var contexts, conc []int
	index := make([]rundoc.CellIndex, len(runs))
	for i, r := range runs {
		index[i] = r.Index()
		for _, c := range r.Cells {
			if c.Phase == phase {
				contexts = append(contexts, c.Context)
				conc = append(conc, c.Concurrency)
			}
		}
	}
	contexts, conc = rundoc.SortedUnique(contexts), rundoc.SortedUnique(conc)
	for _, ctx := range contexts {
		for _, n := range conc {
			row := Row{Context: ctx, Concurrency: n, Entries: make([]Entry, len(runs))}
			any := false
			for i := range runs {
				c := index[i].Find(phase, ctx, n)
				e := &row.Entries[i]
				if c != nil {
					e.Status = c.Status
				}
				e.Value, e.Has = figureOf(f, c)
				if e.Has {
					e.CI95, _ = f.CI95(c)
				}
				e.Unreliable = rundoc.UnreliableHead(c)
				any = any || e.Has || e.Unreliable != ""
			}
			if !any {
				continue
			}
			base := row.Entries[0]
			for i := 1; i < len(runs); i++ {
				e := &row.Entries[i]
				if e.Unreliable == "" && base.Unreliable != "" && e.Has {
					e.Unreliable = "the baseline's " + base.Unreliable
				}
				if base.Has && e.Has {
					e.ChangePct = (e.Value - base.Value) / base.Value * 100
					e.HasChange = true
					e.Significant = rundoc.Significant(base.Value, base.CI95, e.Value, e.CI95)
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// checkRuns validates the runs of a report: 1 to chart.MaxRuns, none nil.
func checkRuns(runs []*rundoc.Run, least int) error {
	if len(runs) < least {
		if least == 2 {
			return errors.New("a comparison needs at least two runs: give two or more IDs or files")
		}
		return errors.New("no run to report: give a run ID or file")
	}
	if len(runs) > chart.MaxRuns {
		return fmt.Errorf("a comparison shows at most %d runs, not %d: pick fewer", chart.MaxRuns, len(runs))
	}
	for _, r := range runs {
		if r == nil {
			return errors.New("a run to report is missing")
		}
	}
	return nil
}

// FormatChange writes a percent change with its sign: "+30.0%", "−4.2%".
func FormatChange(pct float64) string {
	switch {
	case math.Abs(pct) < 0.05:
		return "0.0%"
	case pct > 0:
		return fmt.Sprintf("+%.1f%%", pct)
	}
	return fmt.Sprintf("−%.1f%%", -pct)
}

// NoSignificantChange is what a comparison says of a change smaller than
// the two runs' combined uncertainty.
const NoSignificantChange = "no significant change"

// ChangeText is the change of e against the baseline: "+30.0%", "no
// significant change" when it is within the combined uncertainty,
// "cannot compare: counter +80%" when either cell is Unreliable, "—"
// without a change.
func (e Entry) ChangeText() string {
	switch {
	case e.Unreliable != "":
		return "cannot compare: " + e.Unreliable
	case !e.HasChange:
		return "—"
	case !e.Significant:
		return NoSignificantChange
	}
	return FormatChange(e.ChangePct)
}

// EntryText is a run's figure in a compared cell with the registry's
// decimals and its half-width ("890.6", "890.6 ± 4.2 (queued)"), or why it has none: its status,
// or "—" when the run has no such cell.
func (t Table) EntryText(e Entry) string {
	switch {
	case e.Has && e.Status == rundoc.StatusQueued:
		return t.valueText(e) + " (queued)"
	case e.Has:
		return t.valueText(e)
	case e.Status == "":
		return "—"
	case e.Status == rundoc.StatusUnreliable && e.Unreliable != "":
		return string(e.Status) + ": " + e.Unreliable
	}
	return string(e.Status)
}

// valueText is e's figure with its half-width where it has one.
func (t Table) valueText(e Entry) string {
	if e.CI95 > 0 {
		return t.Figure.Format(e.Value) + " ± " + t.Figure.FormatCI(e.CI95)
	}
	return t.Figure.Format(e.Value)
}
