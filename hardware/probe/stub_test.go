//go:build !(linux && cgo)

package probe_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/hardware/probe"
)

// Without Linux and cgo there is no NVML: detection says why and the
// sampler refuses to start, while the host is still detected.
func TestStubReportsWhy(t *testing.T) {
	snap := probe.Detect(context.Background())
	if len(snap.GPUs) != 0 || snap.GPUs == nil || !strings.HasPrefix(snap.GPUAbsentReason, "GPU detection needs") {
		t.Errorf("GPUs %v reason %q, want [] and \"GPU detection needs …\"", snap.GPUs, snap.GPUAbsentReason)
	}
	if snap.CPU.LogicalCores == 0 {
		t.Errorf("CPU %+v: the host is detected without NVML", snap.CPU)
	}
	if err := probe.NewSampler().Start(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "GPU detection needs") {
		t.Errorf("Start = %v, want the stub's reason", err)
	}
}
