// Package cputime reads the CPU time this process has used (user and
// system, every thread), on each platform in its own way: the runner's
// client share and the benchmarks' cpu-ns/op, which unlike wall time do
// not grow when other processes take the cores of a shared machine.
package cputime

import "time"

// Process is the CPU time this process has used so far, 0 where it cannot
// be read (then no client share is recorded).
func Process() time.Duration { return process() }
