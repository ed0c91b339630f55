package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// planFlags are the flags of `run` that make a plan (every rundoc.PlanFields
// input, each its flag) or label a new run: --resume continues a run with
// its own, so none of them may come with it.
var planFlags = func() []string {
	var out []string
	for _, f := range rundoc.PlanFields {
		out = append(out, string(f))
	}
	return append(out, "name", "tags", "notes")
}()

// checkResume refuses flags that --resume has no use for: a plan of its
// own (the run keeps the plan it measured with), and --no-save (the run is
// continued in the history).
func (f *runFlags) checkResume(set map[string]bool) error {
	if f.resume == "" {
		return nil
	}
	for _, name := range planFlags {
		if set[name] && name != "model" {
			return fmt.Errorf("--resume %s continues the run with its own plan and labels; --%s belongs to a new run", f.resume, name)
		}
	}
	if f.noSave {
		return errors.New("--resume continues a run in the history: drop --no-save")
	}
	return nil
}

// loadResume reads the run to continue from the history and checks that
// something is left to measure in it.
func (f *runFlags) loadResume(ctx context.Context, e *env) (*rundoc.Run, error) {
	db, err := f.saveFlags.open(ctx, e)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	run, err := db.Get(ctx, f.resume)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if run.Status == rundoc.RunRunning {
		// Its recorder is alive (Open marks the runs of dead ones
		// interrupted): two measurements of one run would overwrite
		// each other's cells.
		return nil, fmt.Errorf("run %s is still being measured by another RigBench: resume it once that run has stopped", rundoc.ShortID(run.UUID))
	}
	if run.Origin != rundoc.OriginMeasured {
		return nil, fmt.Errorf("run %s was imported, not measured here: only a run this history recorded can be resumed", rundoc.ShortID(run.UUID))
	}
	if bench.Remaining(run) == 0 {
		return nil, fmt.Errorf("run %s has nothing left to measure: every cell of its plan has a result (Failed, Cancelled and Unreliable cells, and cells never run, are what --resume measures)", rundoc.ShortID(run.UUID))
	}
	return run, nil
}

// goneAdvice rewords a run stopped by a dead server for the command line:
// what was kept, then the command that measures the rest.
func (f *runFlags) goneAdvice(runErr error, run *rundoc.Run, saved bool) error {
	var gone *bench.ServerGoneError
	if !errors.As(runErr, &gone) || run == nil {
		return runErr
	}
	if !saved {
		return fmt.Errorf("%s; the run was not saved (--no-save), so start the server again and run it again", gone.Stopped())
	}
	return fmt.Errorf("%s; start the server again and run the rest %s --resume %s%s", gone.Stopped(), f.resumeTarget(), rundoc.ShortID(run.UUID), f.saveFlags.dbArg())
}

// resumeTarget words the target of a --resume command for this run's
// flags: "with: rigbench-cli run --endpoint URL", ending where " --resume
// ID" follows.
func (f *runFlags) resumeTarget() string {
	switch {
	case f.launch.rig != "":
		return "with the same --rig and --launch flags (once the rig answers again) and"
	case f.endpoint != "":
		return "with: rigbench-cli run --endpoint " + vllm.Quote(f.endpoint)
	case f.demo:
		return "with: rigbench-cli run --demo"
	}
	return "with the same --launch flags and"
}

// unreliableAdvice is the line a saved run with Unreliable cells ends
// with: how many, and the command that measures them again, with target
// as resumeTarget words it (METHOD.md: Status, Resume); "" when it has
// none.
func unreliableAdvice(run *rundoc.Run, target, dbArg string) string {
	n := 0
	for _, c := range run.Cells {
		if c.Status == rundoc.StatusUnreliable {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d cell(s) are Unreliable (their reasons are above); measure them again %s --resume %s%s", n, target, rundoc.ShortID(run.UUID), dbArg)
}
