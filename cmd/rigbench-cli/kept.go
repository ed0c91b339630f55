package main

import (
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
)

// keepHistory adds to g the history that dbFlag (else $RIGBENCH_DB, else
// the default) names, its SQLite companions, and the folder of sweep specs
// beside it, so no output of the command can replace them. A path that
// cannot be resolved is left to the command's own open, which says why.
func keepHistory(g *safefile.Guard, e *env, dbFlag string) {
	path, err := store.ResolvePath(dbFlag, e.getenv)
	if err != nil {
		return
	}
	for _, f := range store.Files(path) {
		g.Keep(f, "the history of runs (--db)")
	}
	g.KeepDir(tune.SpecDir(path), "a sweep spec, in the folder where sweeps keep their specs for --resume, beside the history")
}
