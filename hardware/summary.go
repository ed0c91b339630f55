package hardware

import (
	"fmt"
	"strings"
)

// Summary is the snapshot in one line for reports, history rows and the
// window title: "NVIDIA GeForce RTX 3060 12.0 GiB · driver 550.54 · CUDA 12.4",
// "2× NVIDIA H100 80GB HBM3 79.6 GiB · …" for identical cards, names joined
// with " + " for mixed ones, or "no GPU: <reason>".
func (s Snapshot) Summary() string {
	if len(s.GPUs) == 0 {
		if s.GPUAbsentReason == "" {
			return "no GPU"
		}
		return "no GPU: " + s.GPUAbsentReason
	}
	parts := []string{gpuGroups(s.GPUs)}
	if s.DriverVersion != "" {
		parts = append(parts, "driver "+s.DriverVersion)
	}
	if s.CUDADriverVersion != "" {
		parts = append(parts, "CUDA "+s.CUDADriverVersion)
	}
	return strings.Join(parts, " · ")
}

// GPUNames names the snapshot's cards, the one way every view, report and
// the history name GPUs: "NVIDIA GeForce RTX 3060", "2× NVIDIA H100 80GB
// HBM3" for identical cards, names joined with " + " for mixed ones, and
// "" for a nil snapshot or one without a GPU.
func (s *Snapshot) GPUNames() string {
	if s == nil {
		return ""
	}
	return groupNames(s.GPUs, func(g GPU) string { return g.Name })
}

// gpuGroups names the cards with their memory, counting identical ones.
func gpuGroups(gpus []GPU) string { return groupNames(gpus, gpuLabel) }

// groupNames labels each card and counts identical labels: "2× A + B".
// Cards are grouped wherever they sit, so "A, B, A" reads "2× A + B".
func groupNames(gpus []GPU, label func(GPU) string) string {
	var order []string
	count := map[string]int{}
	for _, g := range gpus {
		l := label(g)
		if count[l] == 0 {
			order = append(order, l)
		}
		count[l]++
	}
	for i, l := range order {
		if count[l] > 1 {
			order[i] = fmt.Sprintf("%d× %s", count[l], l)
		}
	}
	return strings.Join(order, " + ")
}

// gpuLabel is "<name> <VRAM>", the VRAM worded as everywhere else (GiB,
// one decimal: "NVIDIA GeForce RTX 3060 12.0 GiB"), not the "12 GB" a
// card is sold as, which read as a second unit beside the Hardware view's.
func gpuLabel(g GPU) string {
	name := g.Name
	if name == "" {
		name = fmt.Sprintf("GPU %d", g.Index)
	}
	if g.VRAMTotalBytes == 0 {
		return name
	}
	return name + " " + GiB(g.VRAMTotalBytes)
}
