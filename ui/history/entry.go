package history

import (
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Entry is one line of the history table. The database lists runs without
// their cells (reading 10,000 runs' cells to draw a table would be slow),
// so the headline figures travel beside the run instead of being computed
// from it.
type Entry struct {
	// Run carries the identity and labels (UUID, name, tags, dates, status,
	// origin, server); its Cells may be empty and its Notes unset.
	Run *rundoc.Run
	// GPU labels the run's cards ("RTX 3060", "2× RTX 4090"); "" if none.
	GPU string
	// Rig names the rig the run's server ran on ("ssh://basement"); "" when
	// not recorded (a demo, an endpoint, a run from before rigs).
	Rig string
	// Best is the highest total tok/s of a Valid decode cell, 0 if none.
	Best float64
	// Imported is true when the run came into the history from a file.
	Imported bool
	// Flags are the launch's arguments after the model (none for an
	// endpoint or an imported CSV).
	Flags []string
}

// EntryOf makes the entry of a complete run, computing its figures from
// its cells.
func EntryOf(r *rundoc.Run) Entry {
	e := Entry{Run: r, Best: best(r), Imported: r.Origin == rundoc.OriginImported}
	e.GPU, e.Rig = r.Hardware.GPUNames(), r.RigName()
	if r.Launch != nil {
		e.Flags = r.Launch.Args
	}
	return e
}

// best is the run's highest decode total tok/s over Valid cells: the
// headline figure, as the history database computes it (a queued cell's
// rate is real but not what the card sustains with all N in flight).
func best(r *rundoc.Run) float64 {
	b := 0.0
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode && c.Status == rundoc.StatusValid && c.TotalTokS > b {
			b = c.TotalTokS
		}
	}
	return b
}
