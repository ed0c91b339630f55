package hardware_test

import (
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

func TestSnapshotSummary(t *testing.T) {
	t.Parallel()
	rtx := hardware.GPU{Name: "NVIDIA GeForce RTX 3060", VRAMTotalBytes: 12288 << 20}
	h100 := hardware.GPU{Name: "NVIDIA H100 80GB HBM3", VRAMTotalBytes: 81559 << 20}
	for _, c := range []struct {
		name string
		snap hardware.Snapshot
		want string
	}{
		{"one card", hardware.Snapshot{GPUs: []hardware.GPU{rtx}, DriverVersion: "550.54", CUDADriverVersion: "12.4"},
			"NVIDIA GeForce RTX 3060 12.0 GiB · driver 550.54 · CUDA 12.4"},
		{"identical cards", hardware.Snapshot{GPUs: []hardware.GPU{h100, h100}, DriverVersion: "550.54.15", CUDADriverVersion: "12.4"},
			"2× NVIDIA H100 80GB HBM3 79.6 GiB · driver 550.54.15 · CUDA 12.4"},
		{"mixed cards", hardware.Snapshot{GPUs: []hardware.GPU{rtx, h100}},
			"NVIDIA GeForce RTX 3060 12.0 GiB + NVIDIA H100 80GB HBM3 79.6 GiB"},
		{"memory not reported", hardware.Snapshot{GPUs: []hardware.GPU{{Index: 1}}},
			"GPU 1"},
		{"no driver", hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found (libnvidia-ml.so.1)"},
			"no GPU: no NVIDIA driver found (libnvidia-ml.so.1)"},
		{"no reason", hardware.Snapshot{}, "no GPU"},
	} {
		if got := c.snap.Summary(); got != c.want {
			t.Errorf("%s: Summary() = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestGPUReported(t *testing.T) {
	t.Parallel()
	g := hardware.GPU{Unsupported: []string{hardware.FieldPowerLimit}}
	if g.Reported(hardware.FieldPowerLimit) {
		t.Errorf("Reported(%q) = true for a field listed in Unsupported", hardware.FieldPowerLimit)
	}
	if !g.Reported(hardware.FieldPCIeGen) {
		t.Errorf("Reported(%q) = false for a field not listed", hardware.FieldPCIeGen)
	}
}
