package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/busytest"
)

// Issue 35, item 2: `run --demo --sim-speed 100` on a machine whose every
// core is busy gives the figures it gives at a low speed, within their ±,
// or the cell says it could not keep up (where every cell says so, a lower
// speed is tried, busytest.FastSpeeds, so that something is compared). Today's failure was a starved
// client timing the simulator's tokens where it read them, 100× late:
// 16K×16 read 367.1 ± 4986.1 tok/s, Valid.
//
// Two measurements of a cell's total tok/s agree when their 95% intervals
// overlap (|a − b| ≤ ±a + ±b). A cell at 100× that says it could not keep up must carry its
// evidence (client_lag_s) and is not compared; every other cell must be
// Valid where the slow run's is, with a ± of at most 10% of its total
// tok/s.
func TestDemoFiguresDoNotDependOnSpeedOnABusyMachine(t *testing.T) {
	dir := t.TempDir()
	run := func(speed string, busy bool) *rundoc.Run {
		out := filepath.Join(dir, "speed"+speed+".json")
		args := []string{"run", "--demo", "--sim-speed", speed, "--contexts", "0,16K", "--concurrency", "1,4,16",
			"--prefill", "none", "--duration", "15s", "--json", out, "--no-save", "--no-telemetry"}
		stop := func() {}
		if busy {
			stop = busytest.HogCores()
		}
		code, stdout, stderr := runCLI(t, args...)
		stop()
		if code != 0 {
			t.Fatalf("run at %s×: exit %d\nstdout:\n%s\nstderr:\n%s", speed, code, stdout, stderr)
		}
		return readRunFile(t, out)
	}
	slow := run("10", false)
	busytest.AgreeAtSomeSpeed(t, slow, func(speed float64) *rundoc.Run {
		return run(strconv.FormatFloat(speed, 'g', -1, 64), true)
	})
}
