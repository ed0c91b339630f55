// Package diagnose tells, from what a run already recorded, why each decode
// cell is as fast as it is and what to try next (issue 26; METHOD.md:
// Diagnosis): the bottleneck of every cell, named with its evidence
// ("waiting 8, running 16 = --max-num-seqs"), and advice: the launch flag
// that moves a limit, with RigBench's prediction from the same capacity
// model the plan check uses (bench.DecodeStatus).
//
// It decides and words; it measures nothing. Its results are typed
// (Bottleneck, Advice) and their sentences are written here once, so the
// CLI, the app and the exports say the same. No advice is given without
// evidence in the run, nor any that the server's own facts contradict.
package diagnose
