package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Detail is one line of a cell's details: what it is and its value, both
// ready to read.
type Detail struct {
	Label, Text string
}

// CellDetails is everything the run document holds about one cell, in
// words, for a reader who taps the cell in a matrix (issue 41): its
// status, the notes or reason the runner wrote and what limits it
// (engine/diagnose) first, then how its window opened (the plan's window,
// the ramp to steady state and what held when it opened) and every
// registry figure it has with its ± (the server cross-check among them).
// Figures use the registry's decimals and units, so the details read as
// the tables do; a figure the cell lacks is left out, not printed as 0.
func CellDetails(r *rundoc.Run, c *rundoc.Cell) []Detail {
	if c == nil {
		return nil
	}
	out := []Detail{{"Cell", c.Label()}, {"Status", string(c.Status)}}
	add := func(label, text string) {
		if text != "" {
			out = append(out, Detail{label, text})
		}
	}
	// What a reader taps a cell for first: why it reads as it does.
	add("Notes", c.Reason)
	if r != nil {
		for _, b := range diagnose.Cell(r, c) {
			add("Limited by", b.Kind.Title()+" ("+b.Evidence+")")
		}
	}
	if r != nil && c.Phase == rundoc.PhaseDecode {
		add("Window", r.Plan.WindowLabel())
		add("Window opens", r.Plan.OpeningLabel())
	}
	if c.RampS > 0 {
		add("Ramp to steady state", rundoc.ShortDuration(time.Duration(c.RampS*float64(time.Second))))
	}
	if c.Readiness != "" {
		ready := c.Readiness
		if c.WarmupTimedOut {
			ready += " (steady state did not come in time; the window opened anyway)"
		}
		add("At the window's opening", ready)
	}
	for _, f := range rundoc.MeasurementFigures {
		add(f.Title, f.WithUnitCI(c))
	}
	if len(c.SpecPosAccept) > 0 {
		// The drafts' acceptance by depth: where a longer draft stops
		// paying (METHOD.md: Speculative decoding).
		var pos []string
		for i, p := range c.SpecPosAccept {
			pos = append(pos, fmt.Sprintf("%d: %s%%", i+1, rundoc.FigSpecAcceptRate.Format(100*p)))
		}
		add("Accepted by draft position", strings.Join(pos, ", "))
	}
	if c.ChunkGapMs > 0 {
		add("Chunk gap", rundoc.FigTBT.Format(c.ChunkGapMs)+" "+rundoc.FigTBT.Unit)
	}
	return out
}
