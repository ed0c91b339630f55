//go:build unix

package bench_test

import "syscall"

// peakRSSMB is this process's peak resident memory (getrusage's maxrss, in
// KiB on Linux) in MiB.
func peakRSSMB() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return float64(ru.Maxrss) / 1024, true
}
