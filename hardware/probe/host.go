package probe

import (
	"context"
	"github.com/rigbench/rigbench/hardware"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"
)

// detectCPU reads the processor model and core counts. Counts come from
// cpu.Counts: len(cpu.Info()) counts sockets on some platforms and logical
// CPUs on others. A value gopsutil cannot read stays zero.
func detectCPU(ctx context.Context) hardware.CPU {
	var c hardware.CPU
	if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
		c.Model = strings.TrimSpace(infos[0].ModelName)
	}
	if n, err := cpu.CountsWithContext(ctx, false); err == nil {
		c.PhysicalCores = n
	}
	if n, err := cpu.CountsWithContext(ctx, true); err == nil {
		c.LogicalCores = n
	}
	return c
}

// detectMemory reads system RAM; zero when it cannot be read.
func detectMemory(ctx context.Context) hardware.Memory {
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return hardware.Memory{}
	}
	return hardware.Memory{TotalBytes: vm.Total, AvailableBytes: vm.Available}
}

// detectOS names the operating system ("Debian" "12", "Ubuntu" "24.04",
// "Microsoft Windows 11 Pro"), the kernel and the machine architecture.
// gopsutil's host.Info also holds the hostname, which is left out on
// purpose: a snapshot is shared in exports.
func detectOS(ctx context.Context) hardware.OS {
	o := hardware.OS{Name: runtime.GOOS, Arch: runtime.GOARCH}
	info, err := host.InfoWithContext(ctx)
	if err != nil {
		return o
	}
	if info.Platform != "" {
		o.Name = capitalize(info.Platform)
	}
	o.Version = info.PlatformVersion
	o.Kernel = info.KernelVersion
	if info.KernelArch != "" {
		o.Arch = info.KernelArch
	}
	return o
}

// capitalize upper-cases the first letter: gopsutil reports Linux
// distributions by their lower-case ID ("debian").
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
