// Package results is the Results view of one run: the decode matrix as on
// the reference page (total tok/s and TTFT, or the status), the prefill
// table, a sortable table of every measurement, and the charts; a decode
// cell's details show its predicted figure beside the measured one
// (SetPrediction).
package results
