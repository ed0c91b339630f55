package probe_test

import (
	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/hardware/probe"
)

// The runner samples through bench.Telemetry; hardware cannot import bench
// (bench imports hardware), so the assertion lives in this external test.
var _ bench.Telemetry = (*probe.Sampler)(nil)
