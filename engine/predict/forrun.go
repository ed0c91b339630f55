package predict

import (
	"context"
	"fmt"
	"math"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// ForRun is what RigBench would have predicted for a run before it ran,
// from the prior efficiencies (not learned from the run, nor from any
// other: a run's own output says how good the data sheet and profiles
// are): RunRequest with the model looked up offline. An error says what
// the run lacks.
func ForRun(r *rundoc.Run) (*Prediction, error) {
	req, ok := RunRequest(r)
	if !ok {
		return nil, fmt.Errorf("the run records no card RigBench can predict for")
	}
	req.Lookup.Offline = true
	return req.Do(context.Background())
}

// Versus compares a prediction with the run it predicted: over the run's
// Valid decode cells, the largest relative error of total tok/s and its
// cell. n is 0 when no cell compares.
type Versus struct {
	N                   int
	Worst               float64 // |predicted ÷ measured − 1|
	WorstCell           string  // "16K×16"
	Predicted, Measured float64 // the worst cell's total tok/s
	WithinUncertainty   int     // cells within the prediction's ±
}

// Compare is the prediction against the run's measured decode cells.
func (pr *Prediction) Compare(r *rundoc.Run) Versus {
	var v Versus
	for _, c := range pr.Cells {
		m := r.Find(c.Phase, c.Context, c.Concurrency)
		if c.Phase != rundoc.PhaseDecode || c.Status != StatusRuns || m == nil || m.Status != rundoc.StatusValid || m.TotalTokS <= 0 {
			continue
		}
		v.N++
		e := math.Abs(c.TotalTokS/m.TotalTokS - 1)
		if e <= pr.Efficiency.Uncertainty {
			v.WithinUncertainty++
		}
		if e >= v.Worst {
			v.Worst, v.WorstCell, v.Predicted, v.Measured = e, m.Name(), c.TotalTokS, m.TotalTokS
		}
	}
	return v
}

// Text is the comparison in one line, or "" when no cell compares.
func (v Versus) Text(basis string) string {
	if v.N == 0 {
		return ""
	}
	return fmt.Sprintf("Predicted before the run (%s): decode within %.1f%% of measured in %d Valid cells, %d within the ±; worst %s: predicted %s, measured %s.",
		basis, 100*v.Worst, v.N, v.WithinUncertainty, v.WorstCell,
		rundoc.FigTotalTokS.WithUnit(&rundoc.Cell{Phase: rundoc.PhaseDecode, TotalTokS: v.Predicted}),
		rundoc.FigTotalTokS.WithUnit(&rundoc.Cell{Phase: rundoc.PhaseDecode, TotalTokS: v.Measured}))
}
