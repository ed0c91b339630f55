package launchview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/docker"
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
	basics              *fyne.Container
	demo                *demoPanel
	demoScroll          *container.Scroll
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

	return save, fill
}

// layout places the form on the left and the previews, controls and log
// (or the demo's panel) on the right, under the hardware banner.
func (v *View) layout(save, fill *widget.Button) {
	copyServe := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { v.copy(v.Form.ServePreview()) })
	copyDocker := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { v.copy(v.Form.DockerPreview()) })
	preview := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("vllm serve", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), copyServe),
		v.Form.serve,
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("docker run", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), copyDocker),
		v.Form.docker,
		v.pasteSlot,
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
	left := container.NewVBox(
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
	}, minBottom: 120},
		container.NewBorder(nil, controls, nil, nil, v.topScroll), v.logs.box)
	v.demoScroll = container.NewVScroll(v.demo.box)
	v.demo.refresh(v.Form.Config())
	split := container.NewHSplit(container.NewVScroll(left), container.NewStack(v.right, v.demoScroll))
	split.Offset = 0.5
	v.hwBanner = widget.NewLabel("")
	v.hwBanner.Importance = widget.WarningImportance
	v.hwBanner.Wrapping = fyne.TextWrapWord
	v.hwBanner.Hide()
	v.launchParts = container.NewBorder(v.hwBanner, nil, nil, nil, split)
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
		v.launchParts.Show()
		v.basics.Show()
		v.right.Show()
		v.demoScroll.Hide()
		v.hwBanner.Show()
		if v.hwBanner.Text == "" {
			v.hwBanner.Hide()
		}
	case target.Demo:
		moveTo(v.demo.pasteSlot, v.pasteSlot, v.pasteRow)
		v.launchParts.Show()
		v.basics.Hide()
		v.right.Hide()
		v.demoScroll.Show()
		v.hwBanner.Hide()
	default:
		v.launchParts.Hide()
	}
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

// PasteShown reports whether the paste box is on the page shown (the
// demo's panel or the launch previews).
func (v *View) PasteShown() bool {
	if v.DemoShown() {
		return len(v.demo.pasteSlot.Objects) == 1 && v.demo.pasteSlot.Objects[0] == v.pasteRow
	}
	return len(v.pasteSlot.Objects) == 1 && v.pasteSlot.Objects[0] == v.pasteRow
}

// DemoSpeed is the demo speed chosen (1 = the card's own pace).
func (v *View) DemoSpeed() float64 { return v.demo.value }

// SetDemoSpeed shows s as the demo speed without calling OnDemoSpeed.
func (v *View) SetDemoSpeed(s float64) {
	v.demo.setSpeed(s)
	v.demo.refresh(v.Form.Config())
}

// PickDemoSpeed picks s in the speed drop-down, as a user would.
func (v *View) PickDemoSpeed(s float64) { v.demo.speed.SetSelected(speedLabel(s)) }

// DemoText is what the demo panel shows: the explanation, the simulator's
// command line and the problem with the flags ("" when none).
func (v *View) DemoText() (command, problem string) {
	if v.demo.problem.Visible() {
		problem = v.demo.problem.Text
	}
	return v.demo.serve.Text + "\n" + v.demo.vllm.Text, problem
}

// DemoShown reports whether the Launch page shows the demo panel.
func (v *View) DemoShown() bool { return v.launchParts.Visible() && v.demoScroll.Visible() }

// PasteCommand fills the form from a command line and says what it left out.
func (v *View) PasteCommand(line string) {
	v.pasting = true
	ignored, err := v.Form.Paste(line)
	v.pasting = false
	switch {
	case err != nil:
		v.pasteMsg.Importance = widget.DangerImportance
		v.pasteMsg.SetText(err.Error())
	case len(ignored) > 0:
		v.pasteMsg.Importance = widget.WarningImportance
		v.pasteMsg.SetText("Filled the form; left out: " + strings.Join(ignored, " "))
	default:
		v.pasteMsg.Importance = widget.SuccessImportance
		v.pasteMsg.SetText("Filled the form from the command.")
	}
	v.pasteMsg.Show()
	v.relayout()
}

// PasteMessage is what the view said about the last pasted command.
func (v *View) PasteMessage() string { return v.pasteMsg.Text }

func (v *View) copy(s string) {
	v.app.Clipboard().SetContent(s)
}

// tokenChanged: a typed token wins; otherwise HF_TOKEN (or
// HUGGING_FACE_HUB_TOKEN) from the environment is used without being read
// into the form, so it is never shown or stored.
func (v *View) tokenChanged() {
	switch {
	case v.token.Text != "":
		v.Form.setToken(vllm.TokenInline, v.token.Text)
		v.tokenInfo.SetText("Used for this session only; never saved.")
	case os.Getenv("HF_TOKEN") != "" || os.Getenv("HUGGING_FACE_HUB_TOKEN") != "":
		v.Form.setToken(vllm.TokenEnv, "")
		v.token.SetPlaceHolder("using HF_TOKEN from the environment")
		v.tokenInfo.SetText("From the environment; never saved.")
	default:
		v.Form.setToken(vllm.TokenNone, "")
		v.token.SetPlaceHolder("only for gated models")
		v.tokenInfo.SetText("Needed for gated models only; never saved.")
	}
}

// SetUserPresets loads presets saved earlier.
func (v *View) SetUserPresets(p map[string][]vllm.FlagValue) {
	if p == nil {
		p = map[string][]vllm.FlagValue{}
	}
	v.user = p
	v.refreshPresets()
}

func (v *View) refreshPresets() {
	var names []string
	for _, p := range vllm.Presets() {
		names = append(names, p.Name)
	}
	var mine []string
	for n := range v.user {
		mine = append(mine, n)
	}
	sort.Strings(mine)
	v.presets.Options = append(names, mine...)
	v.presets.Refresh()
}

// ApplyPreset loads a built-in or saved preset by name into the form.
func (v *View) ApplyPreset(name string) { v.applyPreset(name) }

func (v *View) applyPreset(name string) {
	if name == "" {
		return
	}
	c := v.Form.Config()
	for _, p := range vllm.Presets() {
		if p.Name == name {
			v.Form.SetConfig(p.Apply(c))
			return
		}
	}
	if flags, ok := v.user[name]; ok {
		c.Flags = append([]vllm.FlagValue(nil), flags...)
		v.Form.SetConfig(c)
	}
}

func (v *View) savePreset() {
	name := widget.NewEntry()
	name.SetPlaceHolder("e.g. 3060 fp8 32K")
	dialog.ShowForm("Save the flags as a preset", "Save", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		n := strings.TrimSpace(name.Text)
		if !ok || n == "" {
			return
		}
		v.SavePreset(n)
	}, v.win)
}

// SavePreset stores the form's flags under name.
func (v *View) SavePreset(name string) {
	v.user[name] = append([]vllm.FlagValue(nil), v.Form.Config().Flags...)
	v.refreshPresets()
	if v.OnUserPresets != nil {
		v.OnUserPresets(v.user)
	}
}

// Server returns the ready server, or nil.
func (v *View) Server() *session.Server {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.server
}

// Starting reports whether a launch is under way (pulling, starting or
// waiting for the server to be ready).
func (v *View) Starting() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cancel != nil && v.server == nil
}

// Start launches the server with the form's configuration. On a computer
// without an NVIDIA GPU it refuses at once, before any image is pulled, and
// offers "Start anyway" (see start).
func (v *View) Start() {
	if v.noGPU != "" && v.Form.Config().GPUs != "" {
		v.showFailure(errors.New(v.noGPU))
		v.fixBtn.SetText("Start anyway")
		v.fixBtn.OnTapped = func() {
			v.fixBtn.Hide()
			v.start()
		}
		v.fixBtn.Show()
		v.revealMessage()
		return
	}
	v.start()
}

// start launches without the GPU check. "Start anyway" exists because
// detection can miss a card Docker can still use: a driver that did not
// answer in time, or RigBench in a sandbox (Flatpak, a container) that
// cannot load libnvidia-ml while the host's Docker has the GPU.
func (v *View) start() {
	if v.launch == nil {
		v.showFailure(errors.New("RigBench cannot start containers here: use an existing endpoint or the demo instead"))
		return
	}
	if errs := vllm.Errors(v.Form.Findings()); len(errs) > 0 {
		v.showFailure(fmt.Errorf("fix the form first: %s", errs[0].Message))
		return
	}
	v.starting = true
	moved := v.ensurePort()
	v.starting = false
	cfg := v.Form.Config()
	ctx, cancel := context.WithCancel(context.Background())
	v.mu.Lock()
	v.cancel = cancel
	v.mu.Unlock()
	v.startBtn.Disable()
	v.stopBtn.Enable()
	v.failure.Hide()
	v.fixBtn.Hide()
	v.ready.Hide()
	v.logs.clear()
	if moved != "" {
		v.logs.add(moved)
	}
	v.pull.SetValue(0)
	v.pull.Show()
	v.relayout()
	prog := Progress{
		Pull: func(done, total int64) {
			if total > 0 {
				fyne.Do(func() { v.pull.SetValue(float64(done) / float64(total)) })
			}
		},
		Log: v.logs.add,
	}
	go func() {
		srv, err := v.launch(ctx, cfg, prog)
		fyne.Do(func() { v.started(cfg, srv, err) })
	}()
}

func (v *View) started(cfg vllm.LaunchConfig, srv *session.Server, err error) {
	if v.afterStart != nil {
		defer v.afterStart()
	}
	defer v.relayout()
	v.pull.Hide()
	if err != nil {
		v.mu.Lock()
		v.cancel = nil
		v.mu.Unlock()
		v.startBtn.Enable()
		v.stopBtn.Disable()
		v.showFailure(err)
		// The log's last line was the step that failed ("Checking
		// image …"); it must not read as still under way.
		v.logs.add("Start failed: " + v.failure.Text)
		return
	}
	v.mu.Lock()
	v.server = srv
	v.mu.Unlock()
	kv := "KV capacity unknown"
	if srv.KVCapacity > 0 {
		kv = fmt.Sprintf("KV cache holds %d tokens", srv.KVCapacity)
	}
	mml := "max model length as vLLM chose it"
	if srv.MaxModelLen > 0 {
		mml = fmt.Sprintf("max model length %d", srv.MaxModelLen)
	}
	v.ready.SetText(fmt.Sprintf("Ready at %s: %s, %s. Go to Run to benchmark it.", srv.Endpoint, kv, mml))
	v.ready.Show()
	v.revealMessage()
	if v.OnReady != nil {
		v.OnReady(srv)
	}
}

// showFailure states the cause in one sentence and, for a recognised
// start-up error with a fix RigBench can make, offers it as one click.
func (v *View) showFailure(err error) {
	defer v.revealMessage()
	v.failure.SetText(wording.Sentence(err.Error()))
	v.failure.Show()
	v.fixBtn.Hide()
	var se *vllm.StartupError
	if !errors.As(err, &se) {
		return
	}
	v.failure.SetText(fmt.Sprintf("%s Suggested fix: %s.", wording.Sentence(se.Explanation), se.Fix))
	if label, fixed, ok := fixFor(se, v.Form.Config()); ok {
		v.fixBtn.SetText(label)
		v.fixBtn.OnTapped = func() {
			v.Form.SetConfig(fixed)
			v.fixBtn.Hide()
			v.failure.Hide()
			v.relayout()
		}
		v.fixBtn.Show()
	}
}

// ensurePort moves the server to a free port when the form's is taken on
// this computer (another server on 8000 is common), updating the preview
// so it stays the command that runs; it returns what it did ("" when the
// port was free).
func (v *View) ensurePort() string {
	port := v.Form.Config().Port
	if port <= 0 || portFree(port) {
		return ""
	}
	free, err := docker.FreePort()
	if err != nil {
		return ""
	}
	v.Form.SetPort(free)
	return fmt.Sprintf("Port %d is in use on this computer; the server listens on %d instead.", port, free)
}

func portFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// SetHardware shows what detection found about this computer as a banner
// above the form: no NVIDIA GPU (Start then refuses at once instead of
// pulling a multi-GB image first), or a Docker that cannot hand the GPU to
// containers (a warning only: a CDI setup can work without the "nvidia"
// runtime Docker lists).
func (v *View) SetHardware(s hardware.Snapshot, d hwview.Docker) {
	v.noGPU = ""
	msg := ""
	switch {
	case len(s.GPUs) == 0:
		v.noGPU = NoGPUMessage
		msg = NoGPUMessage
	case d.Checked && !d.Available:
		msg = orDefault(d.Problem, "Docker is not running: start it to launch vLLM here, or benchmark an existing endpoint or the demo.")
	case d.Checked && !d.NVIDIARuntime:
		msg = orDefault(d.Problem, "Docker has no NVIDIA runtime, so containers may not reach the GPU: install the NVIDIA Container Toolkit, or benchmark an existing endpoint or the demo.")
	}
	v.hwBanner.SetText(msg)
	v.targetChanged(v.Target.Choice())
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

// LogTail is the last line of the log pane ("" when empty); lines reach
// it five times a second.
func (v *View) LogTail() string {
	if n := len(v.logs.lines); n > 0 {
		return v.logs.lines[n-1]
	}
	return ""
}

// Failure is the failure banner's text ("" when hidden) and the fix
// button's label ("" when there is none).
func (v *View) Failure() (text, fix string) {
	if v.failure.Visible() {
		text = v.failure.Text
	}
	if v.fixBtn.Visible() {
		fix = v.fixBtn.Text
	}
	return text, fix
}

// ApplyFix taps the failure banner's fix button.
func (v *View) ApplyFix() {
	if v.fixBtn.Visible() && v.fixBtn.OnTapped != nil {
		v.fixBtn.OnTapped()
	}
}

// ShowStartupError shows a start-up failure as the launch would.
func (v *View) ShowStartupError(err error) { v.showFailure(err) }

// Stop stops the server (or the start in progress) and waits for it on a
// goroutine of its own.
func (v *View) Stop() {
	v.mu.Lock()
	cancel, srv := v.cancel, v.server
	v.cancel, v.server = nil, nil
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	v.stopBtn.Disable()
	v.ready.Hide()
	v.relayout()
	go func() {
		if srv != nil && srv.Stop != nil {
			_ = srv.Stop(context.Background())
		}
		fyne.Do(func() {
			v.startBtn.Enable()
			if v.OnStopped != nil {
				v.OnStopped()
			}
		})
	}()
}

// StopAndWait stops the server and returns when it is gone (used when the
// window closes).
func (v *View) StopAndWait(ctx context.Context) {
	v.mu.Lock()
	cancel, srv := v.cancel, v.server
	v.cancel, v.server = nil, nil
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if srv != nil && srv.Stop != nil {
		_ = srv.Stop(ctx)
	}
}
