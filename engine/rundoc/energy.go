package rundoc

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/hardware"
)

// EnergyLines are a run's energy facts as the reports, `rigbench-cli show`
// and `run` list them, in one wording:
//   - where each decode cell's J/token comes from (the cards' energy
//     counters, or the power samples where a card has no counter): one
//     line when every cell says the same, else the cells of each source;
//   - for a cell served by several GPUs, each GPU's share: its J/token
//     (its energy over the window per output token of the whole server,
//     so the shares add up to the cell's figure), its mean power and its
//     hottest reading; a cluster run's GPUs name their rig ("GPU 1 on
//     ssh://b").
//
// Nil when no decode cell has an energy figure (no telemetry, an imported
// reference run). Figures use the registry's decimals (FigEnergy,
// FigPowerW).
func EnergyLines(r *Run) []string {
	var cells []*Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Phase == PhaseDecode && c.Status.Ran() && c.EnergyJPerToken > 0 && c.GPUStats != nil {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil
	}
	slices.SortStableFunc(cells, func(a, b *Cell) int {
		return cmp.Or(cmp.Compare(a.Context, b.Context), cmp.Compare(a.Concurrency, b.Concurrency))
	})
	var cl *Cluster
	if r.Launch != nil {
		cl = r.Launch.Cluster
	}
	var lines []string
	if l := energySourceLine(cells); l != "" {
		lines = append(lines, l)
	}
	for _, c := range cells {
		if len(c.GPUStats.PerGPU) < 2 {
			continue
		}
		parts := make([]string, 0, len(c.GPUStats.PerGPU))
		for _, g := range c.GPUStats.PerGPU {
			gpu := fmt.Sprintf("GPU %d", g.GPU)
			if rig := cl.RigOfGPU(g.GPU); rig != "" {
				gpu += " on " + rig
			}
			p := fmt.Sprintf("%s %s %s, %s %s mean", gpu, FigEnergy.Format(g.EnergyJPerToken), FigEnergy.Unit,
				FigPowerW.Format(g.PowerMeanW), FigPowerW.Unit)
			if g.TempMaxC > 0 {
				p += fmt.Sprintf(", %.0f °C max", g.TempMaxC)
			}
			parts = append(parts, p)
		}
		lines = append(lines, fmt.Sprintf("%s: %s %s on %d GPUs: %s", c.Name(),
			FigEnergy.Format(c.EnergyJPerToken), FigEnergy.Unit, len(parts), strings.Join(parts, "; ")))
	}
	return lines
}

// energySourceLine says where the cells' energy comes from, "" when no
// cell records it (a run from before the source was kept).
func energySourceLine(cells []*Cell) string {
	bySource := map[string][]string{}
	var order []string
	for _, c := range cells {
		s := c.GPUStats.EnergySource
		if s == "" {
			continue
		}
		if _, seen := bySource[s]; !seen {
			order = append(order, s)
		}
		bySource[s] = append(bySource[s], c.Name())
	}
	switch len(order) {
	case 0:
		return ""
	case 1:
		if len(bySource[order[0]]) == len(cells) {
			return "Energy per token from " + energySourceWords(order[0]) + " in every decode cell."
		}
	}
	parts := make([]string, 0, len(order))
	for _, s := range order {
		parts = append(parts, energySourceWords(s)+" in "+strings.Join(bySource[s], ", "))
	}
	return "Energy per token from " + strings.Join(parts, "; ") + "."
}

// energySourceWords names a source in a sentence.
func energySourceWords(source string) string {
	switch source {
	case hardware.EnergyFromCounter:
		return "the cards' energy counters"
	case hardware.EnergyFromPower:
		return "the power samples (a card without an energy counter)"
	}
	return source
}
