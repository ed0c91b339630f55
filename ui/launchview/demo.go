package launchview

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// DemoSpeeds are the demo's speed choices: 1 is the simulated card's own
// pace (the default plan then takes about as long as on the card); 20 is
// the README's examples' --sim-speed.
var DemoSpeeds = []float64{1, 2, 5, 10, 20, 30, 100}

// DemoIntro is what the Launch page says when the demo is chosen: what the
// demo is and what to do next.
const DemoIntro = "The demo benchmarks RigBench's simulated vLLM server, which answers like an RTX 3060 serving a small model. " +
	"No GPU, Docker or download is needed, and every run is labelled simulated. " +
	"Set the vLLM flags below as you would for a real server (the simulator models their effect on capacity and speed), " +
	"pick a speed, then go to Run and press Start."

// speedNote says that a faster demo changes only the wall-clock wait.
const speedNote = "Faster speeds shorten the wait only: every figure (tokens per second, TTFT, window length) stays in the simulated card's time."

// demoPanel is the right-hand side of the Launch page for the demo.
type demoPanel struct {
	box     *fyne.Container
	speed   *widget.Select
	serve   *widget.Label
	vllm    *widget.Label
	problem *widget.Label
	// pasteSlot holds the Launch page's paste box while the demo is
	// chosen: a command pasted here fills the same flags.
	pasteSlot *fyne.Container
	// fitSlot holds the "Will it fit?" panel while the demo is chosen.
	fitSlot *fyne.Container
	// value is the chosen speed; onSpeed is called after a change.
	value   float64
	onSpeed func(float64)
}

func speedLabel(s float64) string {
	if s == 1 {
		return "1× (the card's own pace)"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "× faster"
}

func newDemoPanel() *demoPanel {
	p := &demoPanel{value: 1}
	opts := make([]string, len(DemoSpeeds))
	for i, s := range DemoSpeeds {
		opts[i] = speedLabel(s)
	}
	p.speed = widget.NewSelect(opts, func(label string) {
		for _, s := range DemoSpeeds {
			if speedLabel(s) == label && s != p.value {
				p.value = s
				if p.onSpeed != nil {
					p.onSpeed(s)
				}
			}
		}
	})
	p.speed.SetSelected(speedLabel(1))
	intro := widget.NewLabel(DemoIntro)
	intro.Wrapping = fyne.TextWrapWord
	note := widget.NewLabel(speedNote)
	note.Wrapping = fyne.TextWrapWord
	// Italic, not low importance: Fyne's faint grey is hard to read on
	// white, and this sentence is why the figures can be trusted.
	note.TextStyle.Italic = true
	p.serve = mono()
	p.vllm = mono()
	p.pasteSlot = container.NewStack()
	p.fitSlot = container.NewStack()
	p.problem = widget.NewLabel("")
	p.problem.Importance = widget.DangerImportance
	p.problem.Wrapping = fyne.TextWrapWord
	p.problem.Hide()
	p.box = container.NewVBox(
		widget.NewLabelWithStyle("Demo: a simulated server", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		intro,
		widget.NewForm(widget.NewFormItem("Speed", p.speed)),
		note,
		widget.NewLabelWithStyle("The simulated server runs as", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.serve,
		widget.NewLabelWithStyle("which stands for", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.vllm,
		p.problem,
		p.fitSlot,
		widget.NewLabelWithStyle("Paste a command", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.pasteSlot,
	)
	return p
}

// setSpeed selects the speed closest to s without calling onSpeed; a speed
// from RIGBENCH_SIM_SPEED that is not a choice is added to the list.
func (p *demoPanel) setSpeed(s float64) {
	if s < 1 {
		s = 1
	}
	p.value = s
	label := speedLabel(s)
	found := false
	for _, o := range p.speed.Options {
		found = found || o == label
	}
	if !found {
		p.speed.Options = append(p.speed.Options, label)
	}
	cb := p.speed.OnChanged
	p.speed.OnChanged = nil
	p.speed.SetSelected(label)
	p.speed.OnChanged = cb
}

// DemoArgs is the part of a launch configuration the simulator runs
// (session.DemoArgs).
func DemoArgs(c vllm.LaunchConfig) []string { return session.DemoArgs(c) }

// DemoConfig is the simulator configuration of the demo for the launch
// form's flags at the given speed (session.DemoConfig).
func DemoConfig(c vllm.LaunchConfig, speed float64) (sim.Config, error) {
	return session.DemoConfig(c, speed)
}

// refresh shows the simulator's command line for c and any argument it
// refuses.
func (p *demoPanel) refresh(c vllm.LaunchConfig) {
	args := append([]string{"rigbench-cli", "sim"}, DemoArgs(c)...)
	if p.value > 1 {
		args = append(args, "--speed", strconv.FormatFloat(p.value, 'f', -1, 64))
	}
	p.serve.SetText(vllm.JoinArgs(args))
	cfg, err := DemoConfig(c, p.value)
	// The same flags as the `vllm serve` line a real card would run.
	p.vllm.SetText(vllm.JoinArgs(append([]string{"vllm", "serve", session.DemoModel(cfg)}, DemoArgs(c)...)))
	if err != nil {
		p.problem.SetText(fmt.Sprintf("The demo cannot start with these arguments: %s.", strings.TrimSuffix(err.Error(), ".")))
		p.problem.Show()
	} else {
		p.problem.Hide()
	}
}
