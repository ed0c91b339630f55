// Package quality answers "faster, but still right?": it measures what a
// launch's answers are worth (task accuracy on a pinned data set, token
// agreement with logprobs) and compares two such probes item by item, with
// the statistics of METHOD.md's "Quality (paired check)" written once here:
// Wilson intervals, the exact McNemar test, the paired difference's
// interval and the smallest loss a sample could have detected.
//
// It is pure Go: no UI, no history. The front ends fill a Probe, run it
// against an endpoint (engine/client) and print or save its Result, a
// rigbench.quality/v1 document.
package quality
