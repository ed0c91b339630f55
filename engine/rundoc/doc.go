// Package rundoc is the run document (rigbench.run/v1): Run, Cell, Plan,
// Launch, Server, statuses, the progress events of a run, and JSON
// read/write/validate. It is a leaf: it imports no other package of RigBench
// but hardware's data types, so the history store, the launcher and the
// reports can read runs without linking the runner, the HTTP client or NVML.
package rundoc
