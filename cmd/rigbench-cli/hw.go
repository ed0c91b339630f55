package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
	"github.com/rigbench/rigbench/internal/termtext"
)

func init() {
	register(&command{
		name:    "hw",
		usage:   "hw [--json] [--timeout 10s] [--rig NAME|ssh://user@host [--image IMAGE] [--no-gpu]]",
		summary: "Show this machine's (or a rig's) GPUs, CPU, RAM and OS as RigBench records them.",
		run:     runHW,
	})
}

// runHW prints the hardware snapshot. A machine without a GPU is a normal
// state: it exits 0 and says why there is no GPU.
func runHW(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("hw", e)
	asJSON := fs.Bool("json", false, "print the snapshot as JSON")
	timeout := fs.Duration("timeout", probe.DefaultTimeout, "how long to wait for the NVIDIA driver")
	rigName := fs.String("rig", "", rigUsage+"; a rig's GPUs are read with nvidia-smi in a short-lived container of an image already there")
	image := fs.String("image", vllm.DefaultImage+":"+vllm.DefaultTag, "with --rig, the image on the rig to run nvidia-smi in")
	noGPU := fs.Bool("no-gpu", false, "with --rig, attach no GPU to that container (RigBench's simulator image answers without one)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return exitError{code: 2}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	snap, err := hwSnapshot(ctx, e, *rigName, *image, *noGPU, *timeout)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(snap)
	}
	return printSnapshot(e.stdout, snap)
}

// hwSnapshot is this machine's snapshot (NVML and /proc), or with --rig
// the rig's, read through its Docker.
func hwSnapshot(ctx context.Context, e *env, rigName, image string, noGPU bool, timeout time.Duration) (hardware.Snapshot, error) {
	if rigName == "" {
		if noGPU {
			return hardware.Snapshot{}, usagef("--no-gpu applies only with --rig")
		}
		return probe.Detect(ctx, probe.WithTimeout(timeout)), nil
	}
	conn, err := connectRig(ctx, e, rigName)
	if err != nil {
		return hardware.Snapshot{}, err
	}
	if conn != nil {
		defer conn.Close()
	}
	var opts []docker.Option
	if noGPU {
		opts = append(opts, docker.WithoutGPU())
	}
	return session.RigHardware(ctx, conn, []string{image}, opts...)
}

// printSnapshot writes the snapshot for people: one block per GPU, then
// the machine. Fields a card does not report read "n/a".
func printSnapshot(out io.Writer, s hardware.Snapshot) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if len(s.GPUs) == 0 {
		fmt.Fprintf(w, "GPU\tnone: %s\n", orNA(s.GPUAbsentReason))
	}
	for _, g := range s.GPUs {
		printGPU(w, g)
	}
	if len(s.GPUs) > 0 {
		if s.GPUAbsentReason != "" {
			fmt.Fprintf(w, "Note\t%s\n", s.GPUAbsentReason)
		}
		fmt.Fprintf(w, "Driver\t%s · CUDA %s\n", orNA(s.DriverVersion), orNA(s.CUDADriverVersion))
	}
	for _, l := range s.Topology {
		fmt.Fprintf(w, "Link\t%s\n", hardware.LinkText(l))
	}
	// A rig read through Docker reports threads and total memory only;
	// hardware words its zeros as unknowns, as the app and the reports do.
	fmt.Fprintf(w, "CPU\t%s\n", termtext.Safe(s.CPU.Text()))
	fmt.Fprintf(w, "Memory\t%s\n", s.Memory.Text())
	fmt.Fprintf(w, "OS\t%s\n", osLine(s.OS))
	return w.Flush()
}

func printGPU(w io.Writer, g hardware.GPU) {
	f := func(field, format string, v any) string {
		if !g.Reported(field) {
			return hardware.NA
		}
		return fmt.Sprintf(format, v)
	}
	fmt.Fprintf(w, "GPU %d\t%s\n", g.Index, f(hardware.FieldName, "%s", g.Name))
	fmt.Fprintf(w, "  VRAM\t%s total · %s used · %s free\n",
		f(hardware.FieldVRAM, "%s", hardware.GiB(g.VRAMTotalBytes)), f(hardware.FieldVRAMUsed, "%s", hardware.GiB(g.VRAMUsedBytes)),
		f(hardware.FieldVRAMFree, "%s", hardware.GiB(g.VRAMFreeBytes)))
	fmt.Fprintf(w, "  Compute capability\t%s\n", f(hardware.FieldComputeCapability, "%s", g.ComputeCapability))
	fmt.Fprintf(w, "  Power limit\t%s (default %s, max %s)\n",
		f(hardware.FieldPowerLimit, "%.0f W", g.PowerLimitW), f(hardware.FieldPowerLimitDefault, "%.0f W", g.PowerLimitDefaultW),
		f(hardware.FieldPowerLimitMax, "%.0f W", g.PowerLimitMaxW))
	fmt.Fprintf(w, "  PCIe\tgen %s, width %s now (max gen %s, width %s)\n",
		f(hardware.FieldPCIeGen, "%d", g.PCIeGen), f(hardware.FieldPCIeWidth, "%d", g.PCIeWidth),
		f(hardware.FieldPCIeGenMax, "%d", g.PCIeGenMax), f(hardware.FieldPCIeWidthMax, "%d", g.PCIeWidthMax))
	fmt.Fprintf(w, "  Memory bus\t%s at %s max → %s peak\n",
		f(hardware.FieldMemoryBusWidth, "%d-bit", g.MemoryBusWidthBits), f(hardware.FieldMemoryClockMax, "%d MHz", g.MemoryClockMaxMHz),
		f(hardware.FieldMemoryBandwidth, "%.0f GB/s", g.MemoryBandwidthGBs))
	fmt.Fprintf(w, "  UUID\t%s\n", f(hardware.FieldUUID, "%s", g.UUID))
}

func osLine(o hardware.OS) string {
	parts := []string{strings.TrimSpace(o.Name + " " + o.Version)}
	if o.Kernel != "" {
		parts = append(parts, "kernel "+o.Kernel)
	}
	if o.Arch != "" {
		parts = append(parts, o.Arch)
	}
	return strings.Join(parts, " · ")
}

func orNA(s string) string {
	if s == "" {
		return hardware.NA
	}
	return termtext.Safe(s) // driver and /proc text, shown as text
}
