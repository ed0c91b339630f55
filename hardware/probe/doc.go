// Package probe detects the GPUs (through NVML, loaded at run time), CPU,
// RAM and OS of the machine into a hardware.Snapshot, and samples GPU
// telemetry during a run. It imports no UI.
package probe
