package launchview_test

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
)

// Issue 24 item 7: the demo's page has the paste box (a pasted `vllm
// serve` fills the flags the simulator takes) and shows the flags as a
// `vllm serve` line beside the simulator's; 20× is a speed, as in the
// README's examples. Back on Launch, the paste box is there again.
func TestDemoPageHasPasteAndServePreview(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	ch := target.NewChooser(target.Demo)
	v := launchview.New(a, w, ch, nil)
	w.SetContent(v.Content())
	if !v.DemoShown() || !v.PasteShown() {
		t.Fatalf("demo shown %v, paste box shown %v: want both", v.DemoShown(), v.PasteShown())
	}
	v.PasteCommand("vllm serve agents/a1-4b-fp8 --max-model-len 8192 --max-num-seqs 16")
	cmd, problem := v.DemoText()
	if problem != "" || !strings.Contains(cmd, "rigbench-cli sim") || !strings.Contains(cmd, "vllm serve") ||
		strings.Count(cmd, "--max-num-seqs 16") != 2 {
		t.Errorf("demo text %q (problem %q), want the sim and vllm serve lines with the pasted flags", cmd, problem)
	}
	if !slices.Contains(launchview.DemoSpeeds, 20) {
		t.Errorf("demo speeds %v lack the README's 20×", launchview.DemoSpeeds)
	}
	ch.Set(target.Choice{Kind: target.Launch})
	if v.DemoShown() || !v.PasteShown() {
		t.Errorf("on Launch: demo shown %v, paste box shown %v", v.DemoShown(), v.PasteShown())
	}
}

// Issue 41 minor 4: on the demo's page, a pasted command naming another
// model says the demo serves its own simulated model instead (the pasted
// model was replaced without a word); the demo's own model, or a paste on
// the Launch page, says nothing of it.
func TestDemoSaysItReplacesAPastedModel(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	ch := target.NewChooser(target.Demo)
	v := launchview.New(a, w, ch, nil)
	w.SetContent(v.Content())
	v.PasteCommand("vllm serve InternScience/Agents-A1-4B-FP8 --max-num-seqs 16")
	if msg := v.PasteMessage(); !strings.Contains(msg, "not InternScience/Agents-A1-4B-FP8") || !strings.Contains(msg, "Launch vLLM in Docker") {
		t.Errorf("demo paste of another model says %q, want that the demo serves its own model", msg)
	}
	v.PasteCommand("vllm serve agents/a1-4b-fp8 --max-num-seqs 16")
	if msg := v.PasteMessage(); strings.Contains(msg, "simulated") {
		t.Errorf("a paste of the demo's own model says %q", msg)
	}
	ch.Set(target.Choice{Kind: target.Launch})
	v.PasteCommand("vllm serve InternScience/Agents-A1-4B-FP8 --max-num-seqs 16")
	if msg := v.PasteMessage(); strings.Contains(msg, "simulated") {
		t.Errorf("a paste on the Launch page says %q", msg)
	}
}
