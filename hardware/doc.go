// Package hardware detects the GPUs (through NVML), CPU, RAM and OS of the
// machine, and samples GPU telemetry during a run. It imports no UI.
package hardware
