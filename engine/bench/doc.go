// Package bench holds the benchmark of METHOD.md: the plan, the prompts, the
// runner, the statistics and the run document (Run) that every other part of
// RigBench reads or writes. It imports no UI and no storage.
package bench
