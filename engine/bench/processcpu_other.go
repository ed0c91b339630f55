//go:build !unix

package bench

import "time"

// ProcessCPU is 0 where RigBench cannot read its CPU time: no window then
// records a client share.
func ProcessCPU() time.Duration { return 0 }
