package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code = execute(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// On this machine (no GPU, no driver in CI) hw --json exits 0 and reports
// the CPU, RAM, OS and why there is no GPU; on a GPU machine it lists them.
func TestHWJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "hw", "--json")
	if code != 0 {
		t.Fatalf("hw --json exit %d, stderr %q", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("hw --json printed invalid JSON: %v\n%s", err, out)
	}
	var gpus []json.RawMessage
	if string(doc["gpus"]) == "null" || json.Unmarshal(doc["gpus"], &gpus) != nil {
		t.Fatalf("gpus = %s, want a list (empty, not null, without a GPU)", doc["gpus"])
	}
	var reason string
	_ = json.Unmarshal(doc["gpu_absent_reason"], &reason)
	if len(gpus) == 0 && reason == "" {
		t.Errorf("no GPU and no gpu_absent_reason in %s", out)
	}
	var cpu struct {
		Model         *string `json:"model"`
		PhysicalCores int     `json:"physical_cores"`
		LogicalCores  int     `json:"logical_cores"`
	}
	if err := json.Unmarshal(doc["cpu"], &cpu); err != nil || cpu.Model == nil || cpu.PhysicalCores < 1 || cpu.LogicalCores < cpu.PhysicalCores {
		t.Errorf("cpu = %s, want model, physical_cores ≥ 1, logical_cores ≥ physical", doc["cpu"])
	}
	var mem struct {
		Total     uint64 `json:"total_bytes"`
		Available uint64 `json:"available_bytes"`
	}
	if err := json.Unmarshal(doc["memory"], &mem); err != nil || mem.Total == 0 || mem.Available > mem.Total {
		t.Errorf("memory = %s, want 0 < available_bytes ≤ total_bytes", doc["memory"])
	}
	var osInfo hardware.OS
	if err := json.Unmarshal(doc["os"], &osInfo); err != nil || osInfo.Name == "" || osInfo.Kernel == "" {
		t.Errorf("os = %s, want name and kernel", doc["os"])
	}
}

func TestHWHuman(t *testing.T) {
	code, out, errOut := runCLI(t, "hw")
	if code != 0 {
		t.Fatalf("hw exit %d, stderr %q", code, errOut)
	}
	for _, label := range []string{"GPU", "CPU", "Memory", "OS"} {
		if !strings.Contains(out, label) {
			t.Errorf("hw output lacks %q:\n%s", label, out)
		}
	}
	snap := probe.Detect(context.Background())
	if len(snap.GPUs) == 0 && !strings.Contains(out, "none: "+snap.GPUAbsentReason) {
		t.Errorf("hw output should give the reason %q:\n%s", snap.GPUAbsentReason, out)
	}
}

func TestHWBadUsage(t *testing.T) {
	if code, _, _ := runCLI(t, "hw", "extra"); code != 2 {
		t.Errorf("hw extra: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "hw", "--nope"); code != 2 {
		t.Errorf("hw --nope: exit %d, want 2", code)
	}
}

func TestPrintSnapshotNA(t *testing.T) {
	snap := hardware.Snapshot{
		GPUs: []hardware.GPU{{
			Index: 0, Name: "NVIDIA GeForce RTX 3060", VRAMTotalBytes: 12 << 30, VRAMFreeBytes: 11 << 30, VRAMUsedBytes: 1 << 30,
			ComputeCapability: "8.6", PCIeGen: 4, PCIeGenMax: 4, PCIeWidthMax: 16,
			MemoryBusWidthBits: 192, MemoryClockMaxMHz: 7501, MemoryBandwidthGBs: 360.048,
			Unsupported: []string{hardware.FieldPowerLimit, hardware.FieldPowerLimitDefault, hardware.FieldPowerLimitMax, hardware.FieldPCIeWidth},
		}},
		DriverVersion: "550.54.14", CUDADriverVersion: "12.4",
		CPU:    hardware.CPU{Model: "AMD Ryzen 7 5800X", PhysicalCores: 8, LogicalCores: 16},
		Memory: hardware.Memory{TotalBytes: 32 << 30, AvailableBytes: 20 << 30},
		OS:     hardware.OS{Name: "Ubuntu", Version: "24.04", Kernel: "6.8.0", Arch: "x86_64"},
	}
	var b bytes.Buffer
	if err := printSnapshot(&b, snap); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"GPU 0", "NVIDIA GeForce RTX 3060",
		"12.0 GiB total · 1.0 GiB used · 11.0 GiB free",
		"n/a (default n/a, max n/a)",
		"gen 4, width n/a now (max gen 4, width 16)",
		"192-bit at 7501 MHz max → 360 GB/s peak",
		"550.54.14 · CUDA 12.4",
		"AMD Ryzen 7 5800X (8 cores, 16 threads)",
		"32.0 GiB (20.0 GiB available)",
		"Ubuntu 24.04 · kernel 6.8.0 · x86_64",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0 W") {
		t.Errorf("an unsupported power limit printed as 0 W:\n%s", out)
	}
}

func TestPrintSnapshotShowsTheLinksBetweenGPUs(t *testing.T) {
	snap := hardware.Snapshot{
		GPUs:     []hardware.GPU{{Index: 0, Name: "NVIDIA GeForce RTX 3090"}, {Index: 1, Name: "NVIDIA GeForce RTX 3090"}},
		Topology: []hardware.GPULink{{A: 0, B: 1, Path: hardware.PathNVLink, Code: "NV4", NVLinks: 4, P2P: hardware.P2POK}},
	}
	var b bytes.Buffer
	if err := printSnapshot(&b, snap); err != nil {
		t.Fatal(err)
	}
	if want := "GPU 0 ↔ GPU 1: NVLink ×4 (NV4), P2P ok"; !strings.Contains(b.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}
