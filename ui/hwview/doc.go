// Package hwview is the Hardware view: a card per GPU (VRAM bar, power
// limit, PCIe link, memory bandwidth), then CPU, RAM and OS, then Docker
// and the NVIDIA container runtime. Whatever is missing is explained
// together with what still works.
package hwview
