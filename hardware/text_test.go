package hardware_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

// A CPU and a memory are worded from what was reported: every known fact,
// the unknown ones named as not reported, never a 0 (issue 42 item 4: a
// rig read through Docker read "n/a (0 cores, 32 threads)" and "64.0 GiB
// (0.0 GiB available)" in the app).
func TestCPUAndMemoryText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cpu  hardware.CPU
		want string
	}{
		{hardware.CPU{Model: "AMD Ryzen 9 5950X", PhysicalCores: 16, LogicalCores: 32}, "AMD Ryzen 9 5950X (16 cores, 32 threads)"},
		{hardware.CPU{LogicalCores: 32}, "32 threads; model and cores not reported"},
		{hardware.CPU{Model: "Intel Xeon", LogicalCores: 8}, "Intel Xeon (8 threads); cores not reported"},
		{hardware.CPU{Model: " Intel Xeon "}, "Intel Xeon; cores and threads not reported"},
		{hardware.CPU{PhysicalCores: 4}, "4 cores; model and threads not reported"},
		{hardware.CPU{}, "not reported"},
	} {
		if got := c.cpu.Text(); got != c.want {
			t.Errorf("%+v: Text() = %q, want %q", c.cpu, got, c.want)
		}
	}
	for _, c := range []struct {
		mem  hardware.Memory
		want string
	}{
		{hardware.Memory{TotalBytes: 64 << 30, AvailableBytes: 48<<30 + 300<<20}, "64.0 GiB (48.3 GiB available)"},
		{hardware.Memory{TotalBytes: 64 << 30}, "64.0 GiB; available not reported"},
		{hardware.Memory{AvailableBytes: 3 << 30}, "3.0 GiB available; total not reported"},
		{hardware.Memory{}, "not reported"},
	} {
		if got := c.mem.Text(); got != c.want {
			t.Errorf("%+v: Text() = %q, want %q", c.mem, got, c.want)
		}
	}
	for _, s := range []string{hardware.CPU{LogicalCores: 32}.Text(), hardware.Memory{TotalBytes: 1 << 30}.Text()} {
		if strings.Contains(s, "0 cores") || strings.Contains(s, "0.0 GiB") || strings.Contains(s, hardware.NA) {
			t.Errorf("%q words an unknown as a value", s)
		}
	}
}

// GiB is one decimal of binary gigabytes, as nvidia-smi reports memory.
func TestGiB(t *testing.T) {
	t.Parallel()
	for b, want := range map[uint64]string{0: "0.0 GiB", 12288 << 20: "12.0 GiB", 81559 << 20: "79.6 GiB", 1<<30 + 1<<29: "1.5 GiB"} {
		if got := hardware.GiB(b); got != want {
			t.Errorf("GiB(%d) = %q, want %q", b, got, want)
		}
	}
}
