// Package chart draws RigBench's charts of one run or of a comparison of
// 2–6 runs with gonum.org/v1/plot: decode throughput, per-request speed and
// TTFT against concurrency, prefill speed against context, the decode matrix
// as a heatmap with statuses, and energy per token. Output is PNG at a chosen
// size and scale, or deterministic SVG.
//
// Charts read only rundoc.Run, so the app, the CLI and the HTML report draw
// the same pictures. Palettes are colour-blind safe (Okabe–Ito for series,
// viridis for the heatmap) with a light and a dark variant; series also
// differ by dash and marker shape, so colour is never the only cue. A run
// without the data a chart needs gets a drawn "Not enough data" panel, not
// an error.
package chart
