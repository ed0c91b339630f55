package cputime_test

import (
	"testing"

	"github.com/rigbench/rigbench/internal/cputime"
)

// Work on this goroutine shows up as CPU time: the reading is this
// process's, and it grows.
func TestProcessGrowsWithWork(t *testing.T) {
	before := cputime.Process()
	x := uint64(1)
	for cputime.Process()-before < 20_000_000 { // 20 ms of CPU
		for range 1_000_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 {
		t.Log(x) // keeps the loop from being optimised away
	}
	if after := cputime.Process(); after <= before {
		t.Errorf("CPU time went from %v to %v over busy work", before, after)
	}
}
