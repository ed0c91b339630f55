// Package bench executes the benchmark of METHOD.md against a server: the
// prompts, the runner, the statistics and the figures of each cell. The run
// document it fills in (Run, Cell, Plan) lives in engine/rundoc.
package bench
