package hwview

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/wording"
)

// Docker is what the app found out about the local Docker daemon.
type Docker struct {
	// Checked is false while the check has not finished.
	Checked bool
	// Available: the daemon answered.
	Available bool
	// Version is the daemon's version when it answered.
	Version string
	// NVIDIARuntime: the daemon can hand GPUs to containers.
	NVIDIARuntime bool
	// Desktop: the daemon is Docker Desktop's (its GPU remedy is WSL 2's).
	Desktop bool
	// Problem is one sentence saying what is wrong and what to do.
	Problem string
}

// RuntimeProblem is what a view says of a daemon without the NVIDIA
// runtime: Problem as the app's check wrote it, else engine/docker's
// NoGPURuntime as a sentence, so the Container Toolkit's remedy is
// docker.ToolkitHint wherever it is shown (the Hardware view's card, the
// Launch view's banners).
func (d Docker) RuntimeProblem() string {
	if d.Problem != "" {
		return d.Problem
	}
	return wording.Sentence(docker.NoGPURuntime(d.Version, d.Desktop).Error())
}

// View is the Hardware view.
type View struct {
	box *fyne.Container
	rig *fyne.Container // the rig picker, above the scroller
	on  string          // the rig the findings come from, "" for this computer
	// Summary is the one-line description of the machine shown at the top.
	Summary *widget.Label
	again   *widget.Button
	// OnDetect is called when the user asks to detect again (after
	// installing a driver or starting Docker); the app calls Set with the
	// new findings.
	OnDetect func()
}

// New returns a view saying detection is in progress; call Set when the
// snapshot arrives.
func New() *View {
	v := &View{Summary: widget.NewLabel("Detecting hardware…")}
	v.again = widget.NewButtonWithIcon("Detect again", theme.ViewRefreshIcon(), v.DetectAgain)
	v.again.Disable()
	v.box = container.NewVBox(v.top())
	v.rig = container.NewStack()
	return v
}

// SetRigPicker puts the rig picker (ui/rigpick) above the findings: the
// view shows the hardware of the rig picked there.
func (v *View) SetRigPicker(o fyne.CanvasObject) {
	v.rig.Objects = []fyne.CanvasObject{o}
	v.rig.Refresh()
}

// top is the summary line with the Detect again button.
func (v *View) top() fyne.CanvasObject {
	return container.NewBorder(nil, nil, nil, v.again, v.Summary)
}

// DetectAgain presses Detect again: the view says it is detecting and
// asks the app to detect (the button stays off until Set).
func (v *View) DetectAgain() {
	if v.OnDetect == nil {
		return
	}
	v.again.Disable()
	v.Summary.SetText("Detecting hardware…")
	v.OnDetect()
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject {
	return container.NewBorder(v.rig, nil, nil, nil, container.NewVScroll(v.box))
}

// SetOn names where the next findings come from: "" for this computer,
// else the rig picked (its name in the summary and the machine's card).
func (v *View) SetOn(rig string) { v.on = rig }

// SetUnreachable says the picked rig could not be reached: the sentence
// why stands under the rig picker, so the view shows no findings.
func (v *View) SetUnreachable() {
	v.Summary.SetText("Nothing to show: the rig could not be reached (see above).")
	v.again.Enable()
	v.box.Objects = []fyne.CanvasObject{v.top()}
	v.box.Refresh()
}

// Set shows the snapshot and the Docker status. Call on the Fyne goroutine.
func (v *View) Set(s hardware.Snapshot, d Docker) {
	v.Summary.SetText(Summary(s))
	v.again.Enable()
	objs := []fyne.CanvasObject{v.top()}
	if len(s.GPUs) == 0 && v.on != "" {
		v.Summary.SetText("GPU: none read on " + v.on)
		objs = append(objs, notice("No GPU read on the rig", wording.Sentence(reasonOr(s.GPUAbsentReason, "nvidia-smi reported no card"))))
	} else if len(s.GPUs) == 0 {
		objs = append(objs, notice("No NVIDIA GPU found",
			wording.Sentence(reasonOr(s.GPUAbsentReason, "NVML reported no card"))+
				" You can still benchmark an existing endpoint, or try the built-in simulated server (demo) from the Launch tab."))
	}
	for _, g := range s.GPUs {
		objs = append(objs, gpuCard(g, s))
	}
	if len(s.Topology) > 0 {
		objs = append(objs, topologyCard(s.Topology))
	}
	objs = append(objs, hostCard(s, v.on), dockerCard(d))
	v.box.Objects = objs
	v.box.Refresh()
}

// NoGPU is what stands for the GPU name when detection found none; the
// reason goes in its own card, since a raw driver error is no name.
const NoGPU = "GPU: none detected on this computer"

// Summary is the snapshot's one line (GPUs, driver, CUDA), or NoGPU.
func Summary(s hardware.Snapshot) string {
	if len(s.GPUs) == 0 {
		return NoGPU
	}
	return s.Summary()
}

func gpuCard(g hardware.GPU, s hardware.Snapshot) fyne.CanvasObject {
	vram := widget.NewProgressBar()
	if g.VRAMTotalBytes > 0 {
		vram.SetValue(float64(g.VRAMUsedBytes) / float64(g.VRAMTotalBytes))
		vram.TextFormatter = func() string {
			return fmt.Sprintf("%s used of %s (%s free)", hardware.GiB(g.VRAMUsedBytes), hardware.GiB(g.VRAMTotalBytes), hardware.GiB(g.VRAMFreeBytes))
		}
	}
	na := func(field string, text string) string {
		if !g.Reported(field) {
			return hardware.NA
		}
		return text
	}
	form := widget.NewForm(
		widget.NewFormItem("VRAM", vram),
		widget.NewFormItem("Driver / CUDA", widget.NewLabel(orNA(s.DriverVersion)+" / "+orNA(s.CUDADriverVersion))),
		widget.NewFormItem("Compute capability", widget.NewLabel(orNA(g.ComputeCapability))),
		widget.NewFormItem("Power limit", widget.NewLabel(na(hardware.FieldPowerLimit, powerText(g)))),
		widget.NewFormItem("PCIe link", widget.NewLabel(na(hardware.FieldPCIeGen, pcieText(g)))),
		widget.NewFormItem("Memory bandwidth", widget.NewLabel(na(hardware.FieldMemoryBandwidth, fmt.Sprintf("%.0f GB/s (%d-bit bus)", g.MemoryBandwidthGBs, g.MemoryBusWidthBits)))),
	)
	return widget.NewCard(fmt.Sprintf("GPU %d · %s", g.Index, g.Name), "", form)
}

func hostCard(s hardware.Snapshot, on string) fyne.CanvasObject {
	osText := strings.TrimSpace(s.OS.Name + " " + s.OS.Version)
	if s.OS.Kernel != "" {
		osText += " · kernel " + s.OS.Kernel
	}
	if s.OS.Arch != "" {
		osText += " · " + s.OS.Arch
	}
	form := widget.NewForm(
		widget.NewFormItem("CPU", widget.NewLabel(s.CPU.Text())),
		widget.NewFormItem("RAM", widget.NewLabel(s.Memory.Text())),
		widget.NewFormItem("OS", widget.NewLabel(orNA(osText))),
	)
	title := "Computer"
	if on != "" {
		title = "Rig " + on
	}
	return widget.NewCard(title, "", form)
}

func dockerCard(d Docker) fyne.CanvasObject {
	var lines []fyne.CanvasObject
	switch {
	case !d.Checked:
		lines = append(lines, widget.NewLabel("Checking Docker…"))
	case !d.Available:
		lines = append(lines, warn(reasonOr(d.Problem, "Docker is not running: start it, or benchmark an existing endpoint or the demo instead.")))
	default:
		lines = append(lines, widget.NewLabel("Docker "+d.Version+" is running."))
		if d.NVIDIARuntime {
			lines = append(lines, widget.NewLabel("The NVIDIA container runtime is installed: containers can use the GPU."))
		} else {
			lines = append(lines, warn(d.RuntimeProblem()))
		}
	}
	return widget.NewCard("Docker", "", container.NewVBox(lines...))
}

func notice(title, text string) fyne.CanvasObject {
	return widget.NewCard(title, "", warn(text))
}

func warn(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	return l
}

func powerText(g hardware.GPU) string {
	t := fmt.Sprintf("%.0f W", g.PowerLimitW)
	if g.PowerLimitDefaultW > 0 && g.PowerLimitDefaultW != g.PowerLimitW {
		t += fmt.Sprintf(" (default %.0f W)", g.PowerLimitDefaultW)
	}
	if g.PowerLimitMaxW > 0 {
		t += fmt.Sprintf(", max %.0f W", g.PowerLimitMaxW)
	}
	return t
}

// pcieText shows the current link and, when it is narrower or slower than
// the card can do, the maximum: a card idling at Gen1 is normal, one that
// stays below its maximum under load is worth knowing.
func pcieText(g hardware.GPU) string {
	t := fmt.Sprintf("Gen %d x%d", g.PCIeGen, g.PCIeWidth)
	if (g.PCIeGenMax > 0 && g.PCIeGenMax != g.PCIeGen) || (g.PCIeWidthMax > 0 && g.PCIeWidthMax != g.PCIeWidth) {
		t += fmt.Sprintf(" (card max Gen %d x%d; the link slows down when idle)", g.PCIeGenMax, g.PCIeWidthMax)
	}
	return t
}

func orNA(s string) string {
	if strings.TrimSpace(s) == "" {
		return hardware.NA
	}
	return s
}

func reasonOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
