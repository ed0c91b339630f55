package history

import (
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// NormaliseModel is report.NormaliseModel with the models of the runs
// listed as the history's.
func NormaliseModel(id string, listed []Entry) string {
	models := make([]string, 0, len(listed))
	for _, e := range listed {
		models = append(models, e.Run.Server.Model)
	}
	return report.NormaliseModel(id, models)
}

// displayName is how the table names a run: rundoc.Run.Title.
func displayName(r *rundoc.Run) string { return r.Title() }
