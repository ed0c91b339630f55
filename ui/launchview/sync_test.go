package launchview

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/target"
)

// tourCommand is the long docker line the screenshot tour pastes.
const tourCommand = `docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen2.5-1.5B-Instruct --max-model-len 32768 --gpu-memory-utilization 0.92 --max-num-seqs 64 --enable-prefix-caching`

func syncView(t *testing.T) (*View, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	v := New(a, w, target.NewChooser(target.Launch), nil)
	// As in the app: inside the tab bar, below the no-GPU banner.
	w.SetContent(container.NewAppTabs(container.NewTabItem("Launch", v.Content())))
	v.SetHardware(hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found"}, hwview.Docker{Checked: true, Available: true})
	return v, w
}

func sliderAt(t *testing.T, v *View, name string) float64 {
	t.Helper()
	x, ok := v.Form.byName[name].sliderValue()
	if !ok {
		t.Fatalf("%s has no slider", name)
	}
	return x
}

// Issue 16 item 3: the form's controls, previews and messages stay in step
// with what the command carries.
func TestFlagFormStaysInSync(t *testing.T) {
	v, _ := syncView(t)
	f := v.Form

	// Sliders follow a pasted command, then a preset that clears the flag.
	v.PasteCommand(tourCommand)
	if x := sliderAt(t, v, "--max-num-seqs"); x != 64 {
		t.Errorf("after pasting --max-num-seqs 64 the slider shows %g", x)
	}
	v.ApplyPreset("Untuned baseline")
	if x := sliderAt(t, v, "--max-num-seqs"); x == 64 {
		t.Error("after the untuned preset the --max-num-seqs slider still shows 64")
	}
	if strings.Contains(f.ServePreview(), "--max-num-seqs") {
		t.Errorf("the untuned preset left --max-num-seqs in %q", f.ServePreview())
	}
	f.SetFlagText("--max-model-len", "32k")
	if x := sliderAt(t, v, "--max-model-len"); x < 31000 || x > 33000 {
		t.Errorf("--max-model-len 32k puts the slider at %g", x)
	}

	// The paste's message goes with the next edit.
	if v.pasteMsg.Visible() {
		t.Errorf("the paste message %q stayed after the form changed", v.PasteMessage())
	}

	// An unknown flag is said, not taken silently.
	f.extra.SetText("--bogus-flag 3")
	if m := f.GeneralMessage(); !strings.Contains(m, "--bogus-flag") || !strings.Contains(m, "not in RigBench's catalog") {
		t.Errorf("extra --bogus-flag 3: message %q", m)
	}
	f.extra.SetText("")

	// An invalid value is flagged and kept out of the previews.
	f.SetFlagText("--gpu-memory-utilization", "1.7")
	if e := f.FlagError("--gpu-memory-utilization"); !strings.Contains(e, "Left out of the command") {
		t.Errorf("inline error %q, want it to say the value is left out", e)
	}
	for _, p := range []string{f.ServePreview(), f.DockerPreview()} {
		if strings.Contains(p, "1.7") {
			t.Errorf("the invalid value is in the preview %q", p)
		}
	}
	f.SetFlagText("--gpu-memory-utilization", "0.9")
	if !strings.Contains(f.ServePreview(), "--gpu-memory-utilization 0.9") {
		t.Errorf("the fixed value is not in %q", f.ServePreview())
	}

	// A switch without a "--no-" spelling says its state.
	async := f.byName["--async-scheduling"]
	var check *widget.Check
	for _, o := range test.LaidOutObjects(async.obj) {
		if c, ok := o.(*widget.Check); ok {
			check = c
		}
	}
	if check == nil || check.Checked || check.Text != checkOff {
		t.Fatalf("--async-scheduling box: %+v, want unticked and labelled %q", check, checkOff)
	}
	check.SetChecked(true)
	if check.Text != checkOn || !strings.Contains(f.ServePreview(), "--async-scheduling") {
		t.Errorf("ticked: label %q, preview %q", check.Text, f.ServePreview())
	}

	// A failure goes with the next edit.
	v.Start() // no GPU: refuses with a sentence
	if text, _ := v.Failure(); text == "" {
		t.Fatal("Start without a GPU said nothing")
	}
	f.SetFlagText("--max-num-seqs", "8")
	if text, fix := v.Failure(); text != "" || fix != "" {
		t.Errorf("after an edit the old failure stays: %q / %q", text, fix)
	}
}

// At 900×600, inside the tab bar and below the no-GPU banner, with the
// tour's long command pasted, the Start button is on screen above the log.
func TestStartButtonOnScreenAt900x600(t *testing.T) {
	v, w := syncView(t)
	w.Resize(fyne.NewSize(900, 600))
	v.PasteCommand(tourCommand)
	v.Start()
	d := fyne.CurrentApp().Driver()
	start := d.AbsolutePositionForObject(v.startBtn).Y + v.startBtn.Size().Height
	log := d.AbsolutePositionForObject(v.logs.box).Y
	if !v.startBtn.Visible() || start > log || start > 600 {
		t.Errorf("the Start button ends at %.0f, the log starts at %.0f, the window is 600 high", start, log)
	}
	fail := d.AbsolutePositionForObject(v.failure).Y + v.failure.Size().Height
	if fail > log {
		t.Errorf("the failure ends at %.0f, below the log's top %.0f", fail, log)
	}
}
