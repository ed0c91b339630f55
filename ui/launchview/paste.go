package launchview

// The demo's speed and the pasted command: a vllm serve or docker run
// line pasted into the box fills the form.

import (
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

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
	note := ""
	if err == nil {
		note = v.demoModelNote()
	}
	switch {
	case err != nil:
		v.pasteMsg.Importance = widget.DangerImportance
		v.pasteMsg.SetText(err.Error())
	case len(ignored) > 0:
		v.pasteMsg.Importance = widget.WarningImportance
		v.pasteMsg.SetText(strings.TrimSpace("Filled the form; left out: " + strings.Join(ignored, " ") + ". " + note))
	case note != "":
		v.pasteMsg.Importance = widget.WarningImportance
		v.pasteMsg.SetText("Filled the form from the command. " + note)
	default:
		v.pasteMsg.Importance = widget.SuccessImportance
		v.pasteMsg.SetText("Filled the form from the command.")
	}
	v.pasteMsg.Show()
	v.relayout()
}

// demoModelNote says, on the demo's page, that the demo serves its own
// simulated model rather than the one the pasted command names ("" when
// they are the same, or the target is not the demo): the pasted model was
// replaced without a word.
func (v *View) demoModelNote() string {
	if !v.DemoShown() {
		return ""
	}
	c := v.Form.Config()
	cfg, _ := DemoConfig(c, v.demo.value)
	demo := session.DemoModel(cfg)
	if c.Model == "" || demo == "" || strings.EqualFold(c.Model, demo) {
		return ""
	}
	return fmt.Sprintf("The demo serves its simulated %s, not %s: the flags apply to it. Choose Launch vLLM in Docker to run %s.", demo, c.Model, c.Model)
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
