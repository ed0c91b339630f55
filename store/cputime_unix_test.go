//go:build unix

package store

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used. The machines these
// benchmarks run on are shared, so besides wall time (ns/op) they report
// cpu-ns/op, the CPU the operation itself consumed, which does not grow
// when other processes take the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
