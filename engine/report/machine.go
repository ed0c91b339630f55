package report

import (
	"strings"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// notAvailable marks a fact the run did not record, in every report.
const notAvailable = "n/a"

// machineText is a run's machine worded once for every report: the
// Markdown and the HTML print these strings, so they cannot drift apart
// (the HTML once said "GPU unknown" where the Markdown gave the reason).
// Fields are plain text; each report escapes them its own way.
type machineText struct {
	// Recorded is false when the run has no hardware snapshot at all.
	Recorded bool
	// GPUs are present; GPU names them ("2× NVIDIA GeForce RTX 3090"), or
	// says why there are none ("no NVIDIA driver found (libnvidia-ml.so.1)").
	GPUs bool
	GPU  string
	// Driver and CUDA are the NVIDIA driver's versions, "" when unknown.
	Driver, CUDA string
	// CPU and RAM are hardware's wording (CPU.Text, Memory.Text: what is
	// not reported is said so, the same as in the app and the CLI's hw);
	// OS is hardware.NotReported when unknown.
	CPU, RAM, OS string
}

// describeMachine words the hardware of r.
func describeMachine(r *rundoc.Run) machineText {
	hw := r.Hardware
	if hw == nil {
		return machineText{GPU: "not recorded", CPU: "not recorded", RAM: "not recorded", OS: "not recorded"}
	}
	m := machineText{
		Recorded: true,
		GPUs:     len(hw.GPUs) > 0,
		GPU:      chart.GPUName(r),
		Driver:   strings.TrimSpace(hw.DriverVersion),
		CUDA:     strings.TrimSpace(hw.CUDADriverVersion),
		CPU:      hw.CPU.Text(),
		RAM:      hw.Memory.Text(),
		OS:       osText(hw.OS),
	}
	if !m.GPUs {
		m.GPU = strings.TrimSpace(hw.GPUAbsentReason)
		if m.GPU == "" {
			m.GPU = "none detected"
		}
	}
	return m
}

// osText is "Debian 12.11 (kernel 6.18.44-fc-v782, x86_64)": the system
// and its version, then the kernel, labelled so a reader does not take it
// for the system's version, and the architecture.
func osText(o hardware.OS) string {
	name, version := strings.TrimSpace(o.Name), strings.TrimSpace(o.Version)
	if version != "" && !strings.Contains(name, version) {
		name = strings.TrimSpace(name + " " + version)
	}
	var extra []string
	if k := strings.TrimSpace(o.Kernel); k != "" {
		extra = append(extra, "kernel "+k)
	}
	if a := strings.TrimSpace(o.Arch); a != "" {
		extra = append(extra, a)
	}
	switch {
	case name != "" && len(extra) > 0:
		return name + " (" + strings.Join(extra, ", ") + ")"
	case name != "":
		return name
	case len(extra) > 0:
		return strings.Join(extra, ", ")
	}
	return hardware.NotReported
}
