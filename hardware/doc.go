// Package hardware holds what RigBench knows about the machine: the snapshot
// of GPUs, CPU, RAM and OS, GPU telemetry samples and their summary, and the
// names and wording of those facts. It is data only; detection through NVML
// and gopsutil lives in hardware/probe, so the run document and the history
// link no driver code.
package hardware
