package history

import (
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// NormaliseModel is report.NormaliseModel with the ids the app knows: the
// simulator's models and those of the runs listed.
func NormaliseModel(id string, listed []Entry) string {
	known := sim.Models()
	for _, e := range listed {
		known = append(known, e.Run.Server.Model)
	}
	return report.NormaliseModel(id, known)
}

// displayName is how the table names a run: rundoc.Run.Title.
func displayName(r *rundoc.Run) string { return r.Title() }
