//go:build !unix && !windows

package cputime

import "time"

// process is 0 where RigBench cannot read its CPU time.
func process() time.Duration { return 0 }
