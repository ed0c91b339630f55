package compare_test

import "github.com/rigbench/rigbench/engine/rundoc"

// run is a run named name with one Valid decode cell at tokS.
func run(name string, tokS float64) *rundoc.Run {
	return &rundoc.Run{UUID: name, Name: name, Status: rundoc.RunComplete, Cells: []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: tokS, PerRequestTokS: tokS, TTFTMs: 80},
	}}
}
