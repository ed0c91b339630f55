package predict

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// ForRun is what RigBench would have predicted for a run before it ran:
// its card (the simulated one of a demo run, else its hardware's, from
// the data sheet where the snapshot lacks a figure), its model's facts
// (models, the simulator's, else the run's roofline), its launch flags
// and its plan, from the prior efficiencies (not learned from the run
// itself). An error says what the run lacks.
func ForRun(r *rundoc.Run, models Models) (*Prediction, error) {
	name, cards, ok := RunCard(r)
	if !ok {
		return nil, fmt.Errorf("the run records no card")
	}
	var card Card
	if r.Simulated {
		p, ok := simulatedProfile(r, runConfig(r), cards)
		if !ok {
			return nil, fmt.Errorf("the run's simulated card is not a built-in profile's")
		}
		card, _ = ProfileCard(p)
	} else if c, _, ok := DetectedCard(r.Hardware); ok {
		card = c // the cards the launch used are its parallel size
	} else if c, err := FindCard(name); err == nil {
		card = c
	} else {
		return nil, err
	}
	m, ok := runModel(r, models)
	if !ok {
		return nil, fmt.Errorf("the run's model's size is not known")
	}
	var args []string
	if r.Launch != nil {
		args = r.Launch.Args
	}
	cfg := runConfig(r)
	in := Input{Card: card, Cards: cards, Model: m, Args: withoutSimFlags(args), Plan: r.Plan, Efficiency: Prior(card, m.ID)}
	if r.Simulated {
		if p, _ := simulatedProfile(r, cfg, cards); p.Link == sim.LinkNVLink {
			in.NVLink = true
		}
	} else {
		in.NVLink = nvlinked(r)
	}
	return Predict(in)
}

// withoutSimFlags drops the simulator's own --profile from a demo run's
// flags: the card is already the profile's.
func withoutSimFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--profile":
			i++
		case strings.HasPrefix(a, "--profile="):
		default:
			out = append(out, a)
		}
	}
	return out
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
