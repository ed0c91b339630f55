//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used (user + system, every
// thread): Runner.ClientCPU's reading on a real target.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
