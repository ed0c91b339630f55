package probe

import (
	"context"
	"fmt"
	"github.com/rigbench/rigbench/hardware"
	"time"
)

// gpuResult is what one platform's GPU detection found.
type gpuResult struct {
	gpus              []hardware.GPU
	driverVersion     string
	cudaDriverVersion string
	// reason says why gpus is empty or partial ("" when all is well).
	reason string
	// topology links every pair of gpus.
	topology []hardware.GPULink
}

// Detect takes a snapshot of the machine. It never fails: a missing driver,
// no GPU, a field the card does not support or a driver that does not answer
// are states, described in Snapshot.GPUAbsentReason and GPU.Unsupported.
//
// NVML runs on its own goroutine and Detect waits at most the timeout
// (WithTimeout, DefaultTimeout) for it: nvmlInit can block forever on a
// broken driver, and an abandoned call cannot be interrupted, so its
// goroutine is left to finish (and shut NVML down) on its own. Detect still
// blocks for up to the timeout: a UI calls it from a goroutine, or uses
// DetectAsync, never on its event loop.
func Detect(ctx context.Context, opts ...Option) hardware.Snapshot {
	o := newOptions(opts)
	gpuCh := make(chan gpuResult, 1) // buffered: a late answer never blocks
	go func() { gpuCh <- safeDetectGPUs(o) }()
	timer := time.NewTimer(o.timeout)
	defer timer.Stop()

	snap := hardware.Snapshot{CPU: detectCPU(ctx), Memory: detectMemory(ctx), OS: detectOS(ctx)}
	var r gpuResult
	select {
	case r = <-gpuCh:
	case <-timer.C:
		r.reason = fmt.Sprintf("the NVIDIA driver did not answer within %s; check that nvidia-smi works, then detect again", o.timeout)
	case <-ctx.Done():
		r.reason = "GPU detection was cancelled; detect again to see the GPUs"
	}
	snap.GPUs = r.gpus
	snap.Topology = r.topology
	if snap.GPUs == nil {
		snap.GPUs = []hardware.GPU{} // JSON [] rather than null
	}
	snap.GPUAbsentReason = r.reason
	snap.DriverVersion = r.driverVersion
	snap.CUDADriverVersion = r.cudaDriverVersion
	return snap
}

// DetectAsync runs Detect on its own goroutine and delivers the snapshot
// on the returned channel (buffered, so nobody has to read it).
func DetectAsync(ctx context.Context, opts ...Option) <-chan hardware.Snapshot {
	ch := make(chan hardware.Snapshot, 1)
	go func() { ch <- Detect(ctx, opts...) }()
	return ch
}

// safeDetectGPUs turns a panic in a binding into a reason, so that Detect
// keeps its promise never to fail.
func safeDetectGPUs(o options) (r gpuResult) {
	defer func() {
		if p := recover(); p != nil {
			r = gpuResult{reason: fmt.Sprintf("GPU detection failed (%v); check that nvidia-smi works, then detect again", p)}
		}
	}()
	return detectGPUs(o)
}

// formatCUDAVersion turns NVML's CUDA driver version (1000 × major +
// 10 × minor, e.g. 12040) into "12.4".
func formatCUDAVersion(v int) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
