// Package matrix draws the decode matrix of a run (rows = context,
// columns = concurrency) as a grid of cells coloured by total tok/s, each
// showing the throughput and TTFT or the cell's status, as on the reference
// page. The Run view fills it live; the Results view shows a finished run.
package matrix
