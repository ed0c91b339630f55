package launchview

import (
	"context"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/wording"
)

// View is the Launch view. Its methods must run on the Fyne goroutine.
type View struct {
	Form    *Form
	Target  *target.Chooser
	app     fyne.App
	win     fyne.Window
	launch  LaunchFunc
	content fyne.CanvasObject

	presets  *widget.Select
	user     map[string][]vllm.FlagValue
	paste    *widget.Entry
	pasteMsg *widget.Label
	// pasteRow is the paste box and its message, in pasteSlot (under the
	// previews) or in the demo panel's slot.
	pasteRow, pasteSlot *fyne.Container
	token               *widget.Entry
	tokenInfo           *widget.Label
	startBtn            *widget.Button
	stopBtn             *widget.Button
	pull                *widget.ProgressBar
	logs                *logPane
	ready               *widget.Label
	failure             *widget.Label
	fixBtn              *widget.Button
	launchParts         *fyne.Container
	right               *fyne.Container
	topScroll           *container.Scroll
	hwBanner            *widget.Label
	rig                 *fyne.Container // the rig picker, above the banner
	basics              *fyne.Container
	demo                *demoPanel
	// cluster is the launch over several rigs; single the one-rig
	// previews its plan replaces while its box is ticked.
	cluster *clusterPanel
	single  *fyne.Container
	// fit is the "Will it fit?" panel, in fitSlot under the previews or
	// in the demo's panel, whichever the target shows.
	fit        *fitPanel
	fitSlot    *fyne.Container
	demoScroll *container.Scroll
	// logShown is set once a launch starts: from then on the log pane
	// keeps room for its lines (topFirst's minBottom).
	logShown bool
	// pasting and starting are set while PasteCommand and Start edit the
	// form themselves, whose messages must then stay.
	pasting, starting bool
	// noGPU is the sentence Start refuses with when this computer has no
	// NVIDIA GPU ("" when it has one or detection has not finished).
	noGPU string
	// afterStart (tests) is called once a launch has succeeded or failed.
	afterStart func()

	mu     sync.Mutex
	cancel context.CancelFunc
	server *session.Server

	// OnReady is called when a launched server is ready; OnStopped when it
	// stopped. OnUserPresets after the user saved a preset (the app stores
	// them). OnConfig after every form edit.
	OnReady       func(*session.Server)
	OnStopped     func()
	OnUserPresets func(map[string][]vllm.FlagValue)
	OnConfig      func(vllm.LaunchConfig)
	// OnDemoSpeed is called after the user picks another demo speed.
	OnDemoSpeed func(float64)
}

// New builds the view. launch may be nil where RigBench cannot start
// containers; the Start button then says so.
func New(a fyne.App, win fyne.Window, chooser *target.Chooser, launch LaunchFunc) *View {
	v := &View{app: a, win: win, launch: launch, Target: chooser, user: map[string][]vllm.FlagValue{}}
	v.demo = newDemoPanel()
	v.cluster = newClusterPanel(func() {
		if v.single != nil {
			v.refreshCluster()
		}
	})
	v.fit = newFitPanel()
	v.demo.onSpeed = func(s float64) {
		v.demo.refresh(v.Form.Config())
		if v.OnDemoSpeed != nil {
			v.OnDemoSpeed(s)
		}
	}
	v.Form = NewForm(func(c vllm.LaunchConfig) {
		// A message about an earlier paste or launch is stale once the
		// form changes (the fix button's edit clears its own failure).
		if !v.pasting && v.pasteMsg != nil {
			v.pasteMsg.Hide()
		}
		if !v.starting && v.failure != nil {
			v.failure.Hide()
			v.fixBtn.Hide()
		}
		v.relayout()
		if v.demo != nil {
			v.demo.refresh(c)
		}
		v.refreshFit()
		if v.single != nil {
			v.refreshCluster()
		}
		if v.OnConfig != nil {
			v.OnConfig(c)
		}
	})
	v.layout(v.buildWidgets())
	chooser.OnChanged = func(ch target.Choice) { v.targetChanged(ch) }
	v.content = container.NewBorder(container.NewVBox(chooser.Content(), widget.NewSeparator()), nil, nil, nil, v.launchParts)
	v.targetChanged(chooser.Choice())
	return v
}

// buildWidgets makes the presets, paste, token, start/stop and message
// widgets; it returns the two buttons only the layout places.
func (v *View) buildWidgets() (save, fill *widget.Button) {
	v.presets = widget.NewSelect(nil, v.applyPreset)
	v.presets.PlaceHolder = "Load a preset…"
	v.refreshPresets()
	save = widget.NewButtonWithIcon("Save preset…", theme.DocumentSaveIcon(), v.savePreset)

	v.pasteSlot = container.NewStack()
	v.paste = widget.NewMultiLineEntry()
	v.paste.SetPlaceHolder("Paste a `docker run …` or `vllm serve …` command here")
	v.paste.SetMinRowsVisible(2)
	v.paste.Wrapping = fyne.TextWrapBreak
	v.pasteMsg = widget.NewLabel("")
	v.pasteMsg.Wrapping = fyne.TextWrapWord
	v.pasteMsg.Hide()
	fill = widget.NewButtonWithIcon("Fill the form", theme.ContentPasteIcon(), func() { v.PasteCommand(v.paste.Text) })

	v.token = widget.NewPasswordEntry()
	v.tokenInfo = widget.NewLabel("")
	v.tokenInfo.Importance = widget.LowImportance
	v.token.OnChanged = func(string) { v.tokenChanged() }
	v.tokenChanged()

	v.startBtn = widget.NewButtonWithIcon("Start server", theme.MediaPlayIcon(), v.Start)
	v.startBtn.Importance = widget.HighImportance
	v.stopBtn = widget.NewButtonWithIcon("Stop server", theme.MediaStopIcon(), v.Stop)
	v.stopBtn.Disable()
	v.pull = widget.NewProgressBar()
	v.pull.Hide()
	v.logs = newLogPane()
	v.ready = widget.NewLabel("")
	v.ready.Importance = widget.SuccessImportance
	v.ready.Wrapping = fyne.TextWrapWord
	v.ready.Hide()
	v.failure = widget.NewLabel("")
	v.failure.Importance = widget.DangerImportance
	v.failure.Wrapping = fyne.TextWrapWord
	v.failure.Hide()
	v.fixBtn = widget.NewButton("", nil)
	v.fixBtn.Hide()
	v.fit.lookup.OnTapped = v.lookUpModel

	return save, fill
}

// layout places the form on the left and the previews, controls and log
// (or the demo's panel) on the right, under the hardware banner.
func (v *View) layout(save, fill *widget.Button) {
	// The fit panel ends the previews' column, just above Start.
	v.fitSlot = container.NewStack(v.fit.box)
	copyServe := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { v.copy(v.Form.ServePreview()) })
	copyDocker := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { v.copy(v.Form.DockerPreview()) })
	v.single = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("vllm serve", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), copyServe),
		v.Form.serve,
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("docker run", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), copyDocker),
		v.Form.docker,
	)
	// A cluster's plan takes the single launch's place (refreshCluster).
	v.cluster.plan.Objects = append([]fyne.CanvasObject{container.NewBorder(nil, nil,
		widget.NewLabelWithStyle("The cluster", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), v.cluster.copyButton(v.copy))},
		v.cluster.plan.Objects...)
	preview := container.NewVBox(
		v.single,
		v.cluster.plan,
		v.pasteSlot,
		v.fitSlot,
	)
	// One paste box, shown under the launch previews or in the demo's
	// panel, whichever the target shows.
	v.pasteRow = container.NewVBox(container.NewBorder(nil, nil, nil, fill, v.paste), v.pasteMsg)
	v.pasteSlot.Add(v.pasteRow)
	// The demo takes the same flags as a launch (the simulator models
	// them), but no model, image, GPUs or token: those parts hide.
	v.basics = container.NewVBox(
		v.Form.Basics(),
		widget.NewForm(widget.NewFormItem("HF token", container.NewVBox(v.token, v.tokenInfo))),
	)
	// The cluster's rigs sit at the top of the form's column, which
	// scrolls: in a small window the previews keep their height.
	left := container.NewVBox(
		v.cluster.box,
		v.basics,
		container.NewHBox(v.presets, save),
		v.Form.Flags(),
	)
	// The Start button and the server's messages sit below the previews
	// outside their scroller, so that in a small window the previews
	// scroll and the button stays on screen.
	controls := container.NewVBox(container.NewHBox(v.startBtn, v.stopBtn), v.pull, v.ready, v.failure, v.fixBtn)
	v.topScroll = container.NewVScroll(preview)
	v.right = container.New(topFirst{want: func() float32 {
		return preview.MinSize().Height + controls.MinSize().Height + theme.Padding()
	}, minBottom: func() float32 {
		// Before the first launch the log is empty: its search row is
		// enough, and the previews and the paste box below them get the
		// room (on a rig, with the picker and a banner above, 120 units
		// for an empty log hid the paste box under the Start row).
		if !v.logShown {
			return v.logs.box.MinSize().Height
		}
		return 120
	}},
		container.NewBorder(nil, controls, nil, nil, v.topScroll), v.logs.box)
	v.demoScroll = container.NewVScroll(v.demo.box)
	v.demo.refresh(v.Form.Config())
	split := container.NewHSplit(container.NewVScroll(left), container.NewStack(v.right, v.demoScroll))
	split.Offset = 0.5
	v.hwBanner = widget.NewLabel("")
	v.hwBanner.Importance = widget.WarningImportance
	v.hwBanner.Wrapping = fyne.TextWrapWord
	v.hwBanner.Hide()
	v.rig = container.NewStack()
	v.launchParts = container.NewBorder(container.NewVBox(v.rig, v.hwBanner), nil, nil, nil, split)
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// targetChanged shows the launch form for the launch target and its flags,
// with the demo's explanation and speed, for the demo.
func (v *View) targetChanged(ch target.Choice) {
	v.Form.setDemo(ch.Kind == target.Demo)
	switch ch.Kind {
	case target.Launch:
		moveTo(v.pasteSlot, v.demo.pasteSlot, v.pasteRow)
		moveTo(v.fitSlot, v.demo.fitSlot, v.fit.box)
		v.launchParts.Show()
		v.basics.Show()
		v.right.Show()
		v.demoScroll.Hide()
		v.cluster.box.Show()
		// A cluster runs on the rigs ticked in its box, not on the picked
		// rig, whose picker and hardware banner would then mislead.
		single := !v.cluster.on.Checked
		v.rig.Hidden = !single
		v.rig.Refresh()
		v.hwBanner.Hidden = !single || v.hwBanner.Text == ""
		v.hwBanner.Refresh()
	case target.Demo:
		moveTo(v.demo.pasteSlot, v.pasteSlot, v.pasteRow)
		moveTo(v.demo.fitSlot, v.fitSlot, v.fit.box)
		v.launchParts.Show()
		v.basics.Hide()
		v.right.Hide()
		v.demoScroll.Show()
		v.rig.Hide() // the demo runs in RigBench, on this computer
		v.cluster.box.Hide()
		v.hwBanner.Hide()
	default:
		v.launchParts.Hide()
	}
	v.refreshFit()
}

// moveTo makes o the one object of slot, taking it out of from.
func moveTo(slot, from *fyne.Container, o fyne.CanvasObject) {
	if len(slot.Objects) == 1 && slot.Objects[0] == o {
		return
	}
	from.Remove(o)
	slot.Objects = []fyne.CanvasObject{o}
	slot.Refresh()
}

// SetHardware shows what detection found about this computer as a banner
// above the form: no NVIDIA GPU (Start then refuses at once instead of
// pulling a multi-GB image first), or a Docker that cannot hand the GPU to
// containers (a warning only: a CDI setup can work without the "nvidia"
// runtime Docker lists).
func (v *View) SetHardware(s hardware.Snapshot, d hwview.Docker) {
	v.fit.hw = &s
	v.noGPU = ""
	msg := ""
	switch {
	case len(s.GPUs) == 0:
		v.noGPU = NoGPUMessage
		msg = NoGPUMessage
	case d.Checked && !d.Available:
		msg = orDefault(d.Problem, "Docker is not running: start it to launch vLLM here, or benchmark an existing endpoint or the demo.")
	case d.Checked && !d.NVIDIARuntime:
		msg = d.RuntimeProblem()
	}
	v.hwBanner.SetText(msg)
	v.targetChanged(v.Target.Choice())
}

// SetRigHardware is SetHardware for another rig: GPUs it could not read
// (no image to read them with until the first launch pulls one) are a
// warning, not a refusal, and a rig that could not be reached or whose
// Docker does not answer is said as such.
func (v *View) SetRigHardware(s hardware.Snapshot, d hwview.Docker) {
	v.fit.hw = &s
	v.noGPU = ""
	msg := ""
	switch {
	case d.Checked && !d.Available:
		msg = orDefault(d.Problem, "The rig's Docker did not answer: check that Docker runs there.")
	case d.Checked && !d.NVIDIARuntime:
		// Before the unread GPUs: without the runtime they cannot be read,
		// and "Start launches there anyway" promised a launch that fails.
		msg = "On this rig: " + strings.TrimSuffix(d.RuntimeProblem(), ".") +
			", there: a launch on the rig fails until then."
	case len(s.GPUs) == 0:
		msg = "RigBench could not read this rig's GPUs yet: " + wording.LowerFirst(orDefault(s.GPUAbsentReason, "no GPU was reported.")) +
			" Start launches there anyway; Hardware shows the GPUs after the first launch."
	}
	v.hwBanner.SetText(msg)
	v.targetChanged(v.Target.Choice())
}

// SetRigUnreachable clears the banner for a rig that could not be
// reached: the rig picker above says why, and Start tries to reach it
// again.
func (v *View) SetRigUnreachable() {
	v.fit.hw = nil
	v.noGPU = ""
	v.hwBanner.SetText("")
	v.targetChanged(v.Target.Choice())
}

// SetRigPicker puts the rig picker (ui/rigpick) above the launch form: a
// launch starts on the rig picked there.
func (v *View) SetRigPicker(o fyne.CanvasObject) {
	v.rig.Objects = []fyne.CanvasObject{o}
	v.rig.Refresh()
}

// NoGPUMessage is the banner, and Start's refusal, on a computer without
// an NVIDIA GPU.
const NoGPUMessage = "This computer has no NVIDIA GPU that RigBench can use, so vLLM cannot be launched here: benchmark an existing endpoint or the demo instead (Hardware says why)."

// HardwareWarning is the hardware banner's text ("" when there is none);
// the banner shows only while the launch target is chosen.
func (v *View) HardwareWarning() string { return v.hwBanner.Text }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// relayout gives the previews and the server's messages the height they
// now need (topFirst sizes them when the container is laid out, which a
// label shown or a longer preview does not trigger by itself).
func (v *View) relayout() {
	if v.right != nil {
		v.right.Refresh()
	}
}

// revealMessage lays the messages under the Start button out anew: a
// failure nobody sees looks like a button that does nothing. They sit
// outside the previews' scroller, so they are on screen once laid out.
func (v *View) revealMessage() { v.relayout() }
