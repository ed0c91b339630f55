package bench

import (
	"time"

	"github.com/rigbench/rigbench/internal/cputime"
)

// ProcessCPU is the CPU time this process has used (user + system, every
// thread): Runner.ClientCPU's reading on a real target. It is 0 where
// RigBench cannot read it: no window then records a client share.
func ProcessCPU() time.Duration { return cputime.Process() }
