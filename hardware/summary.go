package hardware

import (
	"fmt"
	"strings"
)

// Summary is the snapshot in one line for reports, history rows and the
// window title: "NVIDIA GeForce RTX 3060 12 GB · driver 550.54 · CUDA 12.4",
// "2 × NVIDIA H100 80GB HBM3 80 GB · …" for identical cards, names joined
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

// gpuGroups names the cards, counting runs of identical ones.
func gpuGroups(gpus []GPU) string {
	var groups []string
	for i := 0; i < len(gpus); {
		label := gpuLabel(gpus[i])
		n := 1
		for i+n < len(gpus) && gpuLabel(gpus[i+n]) == label {
			n++
		}
		if n > 1 {
			label = fmt.Sprintf("%d × %s", n, label)
		}
		groups = append(groups, label)
		i += n
	}
	return strings.Join(groups, " + ")
}

// gpuLabel is "<name> <VRAM> GB", the VRAM rounded to whole GiB as cards
// are sold (a 12 GB card reports 12 GiB less a little reserved memory).
func gpuLabel(g GPU) string {
	name := g.Name
	if name == "" {
		name = fmt.Sprintf("GPU %d", g.Index)
	}
	if g.VRAMTotalBytes == 0 {
		return name
	}
	return fmt.Sprintf("%s %.0f GB", name, float64(g.VRAMTotalBytes)/(1<<30))
}
