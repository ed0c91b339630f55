//go:build linux && cgo

package probe_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
)

func TestDetectDGXH100(t *testing.T) {
	t.Parallel()
	snap := probe.Detect(context.Background(), probe.WithNVML(h100Machine(8)))
	if snap.GPUAbsentReason != "" {
		t.Fatalf("GPUAbsentReason = %q, want none", snap.GPUAbsentReason)
	}
	if len(snap.GPUs) != 8 {
		t.Fatalf("got %d GPUs, want 8", len(snap.GPUs))
	}
	if snap.DriverVersion != "550.54.15" || snap.CUDADriverVersion != "12.4" {
		t.Errorf("driver %q CUDA %q, want 550.54.15 and 12.4", snap.DriverVersion, snap.CUDADriverVersion)
	}
	uuids := map[string]bool{}
	for i, g := range snap.GPUs {
		if g.Index != i || g.Name != "NVIDIA H100 80GB HBM3" {
			t.Errorf("GPU %d: index %d name %q, want %d and NVIDIA H100 80GB HBM3", i, g.Index, g.Name, i)
		}
		if g.VRAMTotalBytes != 80<<30 {
			t.Errorf("GPU %d: VRAM %d bytes, want 80 GiB", i, g.VRAMTotalBytes)
		}
		if g.ComputeCapability != "9.0" || g.PowerLimitW != 700 || g.PowerLimitMaxW != 700 || g.PCIeGenMax != 5 || g.PCIeWidthMax != 16 {
			t.Errorf("GPU %d: %+v, want CC 9.0, 700 W, PCIe gen 5 x16", i, g)
		}
		// 5120 bit / 8 × 2619 MHz × 2 / 1000 = 3352.32 GB/s
		if g.MemoryBusWidthBits != 5120 || g.MemoryClockMaxMHz != 2619 || math.Abs(g.MemoryBandwidthGBs-3352.32) > 1e-9 {
			t.Errorf("GPU %d: bus %d bit, %d MHz, %v GB/s, want 5120, 2619, 3352.32", i, g.MemoryBusWidthBits, g.MemoryClockMaxMHz, g.MemoryBandwidthGBs)
		}
		if len(g.Unsupported) != 0 {
			t.Errorf("GPU %d: Unsupported = %q, want none", i, g.Unsupported)
		}
		uuids[g.UUID] = true
	}
	if len(uuids) != 8 {
		t.Errorf("got %d distinct UUIDs, want 8", len(uuids))
	}
	if got, want := snap.Summary(), "8× NVIDIA H100 80GB HBM3 80.0 GiB · driver 550.54.15 · CUDA 12.4"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

// go-nvml's bare mock devices panic for every method they do not model;
// detection must list those fields as unsupported rather than crash.
func TestDetectBareMockListsUnmodelledFields(t *testing.T) {
	t.Parallel()
	snap := probe.Detect(context.Background(), probe.WithNVML(dgxh100.New()))
	if len(snap.GPUs) != 8 {
		t.Fatalf("got %d GPUs (%q), want 8", len(snap.GPUs), snap.GPUAbsentReason)
	}
	g := snap.GPUs[0]
	if g.Name == "" || g.VRAMTotalBytes == 0 {
		t.Errorf("name %q VRAM %d: the modelled fields should be read", g.Name, g.VRAMTotalBytes)
	}
	for _, f := range []string{hardware.FieldPowerLimit, hardware.FieldPCIeGen, hardware.FieldMemoryBusWidth, hardware.FieldMemoryBandwidth} {
		if g.Reported(f) {
			t.Errorf("%s reported, want it listed in Unsupported %q", f, g.Unsupported)
		}
	}
}

func TestDetectConsumerCardListsUnsupported(t *testing.T) {
	t.Parallel()
	m := newMachine([]nvml.Device{consumerCard()})
	snap := probe.Detect(context.Background(), probe.WithNVML(m))
	if len(snap.GPUs) != 1 {
		t.Fatalf("got %d GPUs (%q), want 1", len(snap.GPUs), snap.GPUAbsentReason)
	}
	g := snap.GPUs[0]
	want := []string{hardware.FieldPowerLimit, hardware.FieldPowerLimitDefault, hardware.FieldPowerLimitMax, hardware.FieldPCIeWidth}
	if !slices.Equal(g.Unsupported, want) {
		t.Errorf("Unsupported = %q, want %q", g.Unsupported, want)
	}
	if g.PowerLimitW != 0 || g.PCIeWidth != 0 {
		t.Errorf("unsupported fields hold %v W and x%d, want zeros", g.PowerLimitW, g.PCIeWidth)
	}
	// 192 / 8 × 7501 × 2 / 1000 = 360.048 GB/s
	if g.ComputeCapability != "8.6" || g.PCIeGenMax != 4 || g.PCIeWidthMax != 16 || math.Abs(g.MemoryBandwidthGBs-360.048) > 1e-9 {
		t.Errorf("GPU = %+v, want CC 8.6, PCIe gen 4 x16 max, 360.048 GB/s", g)
	}
	if got, want := snap.Summary(), "NVIDIA GeForce RTX 3060 12.0 GiB · driver 550.54.14 · CUDA 12.4"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	if n, s := m.inits.Load(), m.shutdowns.Load(); n != 1 || s != 1 {
		t.Errorf("Init called %d times, Shutdown %d, want 1 and 1", n, s)
	}
}

// An older driver without nvmlDeviceGetMemoryBusWidth: the function must
// not be called (with lazy binding that would abort the process).
func TestDetectOldDriverSkipsMissingSymbol(t *testing.T) {
	t.Parallel()
	card := consumerCard()
	m := newMachine([]nvml.Device{card}, "nvmlDeviceGetMemoryBusWidth")
	snap := probe.Detect(context.Background(), probe.WithNVML(m))
	if len(card.GetMemoryBusWidthCalls()) != 0 {
		t.Errorf("GetMemoryBusWidth called although the driver lacks it")
	}
	g := snap.GPUs[0]
	if g.Reported(hardware.FieldMemoryBusWidth) || g.Reported(hardware.FieldMemoryBandwidth) || g.MemoryBandwidthGBs != 0 {
		t.Errorf("bus width and bandwidth should be n/a, got %+v", g)
	}
}

func TestDetectAbsence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		lib        func() *machine
		wantReason string
		wantGPUs   int
	}{
		{"missing library", func() *machine {
			m := newMachine(nil)
			m.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
			return m
		}, "no NVIDIA driver found (libnvidia-ml.so.1)", 0},
		{"driver not loaded", func() *machine {
			m := newMachine(nil)
			m.InitFunc = func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }
			return m
		}, "the NVIDIA driver is installed but not loaded; reboot or load the nvidia kernel module", 0},
		{"no GPU", func() *machine { return newMachine(nil) }, "no NVIDIA GPU found; check that nvidia-smi lists your card", 0},
		{"lost GPU", func() *machine { return newMachine([]nvml.Device{consumerCard(), nil}) },
			"could not read GPU 1 (ERROR_GPU_IS_LOST); check that nvidia-smi lists every card", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			snap := probe.Detect(context.Background(), probe.WithNVML(c.lib()))
			if snap.GPUAbsentReason != c.wantReason {
				t.Errorf("GPUAbsentReason = %q, want %q", snap.GPUAbsentReason, c.wantReason)
			}
			if snap.GPUs == nil || len(snap.GPUs) != c.wantGPUs {
				t.Errorf("GPUs = %v, want %d (never nil)", snap.GPUs, c.wantGPUs)
			}
			if snap.CPU.LogicalCores == 0 || snap.Memory.TotalBytes == 0 {
				t.Errorf("CPU %+v, memory %+v: the host is detected even without a GPU", snap.CPU, snap.Memory)
			}
		})
	}
}

func TestDetectHangingInitTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	m := newMachine([]nvml.Device{consumerCard()})
	m.InitFunc = func() nvml.Return { <-release; return nvml.SUCCESS }

	done := make(chan hardware.Snapshot, 1)
	go func() {
		done <- probe.Detect(context.Background(), probe.WithNVML(m), probe.WithTimeout(50*time.Millisecond))
	}()
	var snap hardware.Snapshot
	select {
	case snap = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Detect did not return although NVML init hangs and the timeout is 50ms")
	}
	if want := "the NVIDIA driver did not answer within 50ms"; !strings.HasPrefix(snap.GPUAbsentReason, want) {
		t.Errorf("GPUAbsentReason = %q, want it to start %q", snap.GPUAbsentReason, want)
	}
	if len(snap.GPUs) != 0 || snap.CPU.LogicalCores == 0 {
		t.Errorf("GPUs %v CPU %+v: want no GPU and the CPU still detected", snap.GPUs, snap.CPU)
	}
	// When the driver finally answers, the abandoned detection shuts NVML
	// down again.
	close(release)
	deadline := time.Now().Add(30 * time.Second)
	for m.shutdowns.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("NVML was not shut down after the late init returned")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestDetectCancelled(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	m := newMachine(nil)
	m.InitFunc = func() nvml.Return { <-release; return nvml.SUCCESS }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	snap := <-probe.DetectAsync(ctx, probe.WithNVML(m))
	if !strings.Contains(snap.GPUAbsentReason, "cancelled") {
		t.Errorf("GPUAbsentReason = %q, want it to say detection was cancelled", snap.GPUAbsentReason)
	}
}

// On the real machine detection always says something: GPUs, or why not.
func TestDetectSystem(t *testing.T) {
	t.Parallel()
	snap := probe.Detect(context.Background())
	if len(snap.GPUs) == 0 && snap.GPUAbsentReason == "" {
		t.Error("no GPU and no reason")
	}
	if snap.CPU.PhysicalCores == 0 || snap.CPU.LogicalCores < snap.CPU.PhysicalCores {
		t.Errorf("CPU = %+v, want physical ≥ 1 and logical ≥ physical", snap.CPU)
	}
	if snap.Memory.TotalBytes == 0 || snap.Memory.AvailableBytes > snap.Memory.TotalBytes {
		t.Errorf("Memory = %+v, want 0 < available ≤ total", snap.Memory)
	}
	if snap.OS.Name == "" || snap.OS.Kernel == "" || snap.OS.Arch == "" {
		t.Errorf("OS = %+v, want name, kernel and arch", snap.OS)
	}
}

// linkedPair is two consumer cards whose NVML answers the topology
// queries: linked over NVLink when nvlink is set, else through the PCIe
// host bridge with peer-to-peer refused by the chipset.
func linkedPair(nvlink bool) (*mock.Device, *mock.Device) {
	a, b := consumerCard(), consumerCard()
	for _, d := range []*mock.Device{a, b} {
		d.GetTopologyCommonAncestorFunc = func(nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			return nvml.TOPOLOGY_HOSTBRIDGE, nvml.SUCCESS
		}
		d.GetP2PStatusFunc = func(_ nvml.Device, idx nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return) {
			switch {
			case nvlink:
				return nvml.P2P_STATUS_OK, nvml.SUCCESS
			case idx == nvml.P2P_CAPS_INDEX_READ:
				return nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED, nvml.SUCCESS
			}
			return nvml.P2P_STATUS_NOT_SUPPORTED, nvml.SUCCESS
		}
	}
	return a, b
}

func TestDetectTopologyOfTwoGPUs(t *testing.T) {
	t.Parallel()
	a, b := linkedPair(false)
	snap := probe.Detect(context.Background(), probe.WithNVML(newMachine([]nvml.Device{a, b})))
	if len(snap.GPUs) != 2 || len(snap.Topology) != 1 {
		t.Fatalf("GPUs %d, topology %+v: want one link between two GPUs", len(snap.GPUs), snap.Topology)
	}
	want := hardware.GPULink{A: 0, B: 1, Path: hardware.PathHostBridge, Code: "PHB", P2P: "not supported by the chipset"}
	if snap.Topology[0] != want {
		t.Errorf("link %+v, want %+v", snap.Topology[0], want)
	}
	a, b = linkedPair(true)
	snap = probe.Detect(context.Background(), probe.WithNVML(newMachine([]nvml.Device{a, b})))
	if len(snap.Topology) != 1 || snap.Topology[0].Path != hardware.PathNVLink || snap.Topology[0].P2P != hardware.P2POK {
		t.Errorf("NVLinked pair read as %+v", snap.Topology)
	}
	// A mock that models no topology query: no link rather than a guess.
	snap = probe.Detect(context.Background(), probe.WithNVML(newMachine([]nvml.Device{consumerCard(), consumerCard()})))
	if len(snap.GPUs) != 2 || snap.Topology != nil {
		t.Errorf("unmodelled topology read as %+v", snap.Topology)
	}
}
