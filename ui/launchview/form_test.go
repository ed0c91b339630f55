package launchview_test

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
)

func newView(t *testing.T) *launchview.View {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	v := launchview.New(a, w, target.NewChooser(target.Launch), nil)
	w.SetContent(v.Content())
	return v
}

// Editing the flag form updates the previews and validates inline.
func TestFlagFormUpdatesAndValidatesPreview(t *testing.T) {
	v := newView(t)
	f := v.Form
	f.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	if !f.SetFlagText("--max-model-len", "16384") {
		t.Fatal("--max-model-len has no text field")
	}
	if got := f.ServePreview(); !strings.Contains(got, "--max-model-len 16384") || !strings.Contains(got, "Qwen/Qwen2.5-1.5B-Instruct") {
		t.Errorf("serve preview = %q, want the model and --max-model-len 16384", got)
	}
	if got := f.DockerPreview(); !strings.HasPrefix(got, "docker run") || !strings.Contains(got, "--max-model-len 16384") {
		t.Errorf("docker preview = %q, want a docker run line with the flag", got)
	}
	if msg := f.FlagError("--max-model-len"); msg != "" {
		t.Errorf("valid value flagged: %q", msg)
	}

	f.SetFlagText("--gpu-memory-utilization", "1.5")
	if msg := f.FlagError("--gpu-memory-utilization"); msg == "" {
		t.Error("--gpu-memory-utilization 1.5 shows no inline error")
	}
	if len(vllm.Errors(f.Findings())) == 0 {
		t.Error("an out-of-range value left the config valid")
	}
	f.SetFlagText("--gpu-memory-utilization", "0.85")
	if msg := f.FlagError("--gpu-memory-utilization"); msg != "" {
		t.Errorf("fixed value still flagged: %q", msg)
	}
	if !strings.Contains(f.ServePreview(), "--gpu-memory-utilization 0.85") {
		t.Errorf("serve preview %q lacks the edited utilisation", f.ServePreview())
	}

	f.SetFlagText("--max-model-len", "")
	if strings.Contains(f.ServePreview(), "--max-model-len") {
		t.Errorf("clearing the field left the flag in %q", f.ServePreview())
	}
}

// A typed HF token is masked in the docker preview.
func TestTokenNeverInPreview(t *testing.T) {
	v := newView(t)
	v.Form.SetModel("meta-llama/Llama-3.2-1B")
	c := v.Form.Config()
	if c.HFToken != "" {
		t.Fatal("token set before typing")
	}
	// The token field is the only password entry; type through the view.
	secret := "hf_secret_value_123"
	setToken(t, v, secret)
	if strings.Contains(v.Form.DockerPreview(), secret) {
		t.Errorf("docker preview shows the token: %q", v.Form.DockerPreview())
	}
	if v.Form.Config().HFToken != secret {
		t.Error("the typed token did not reach the launch config")
	}
}

// A pasted command fills the form.
func TestPastedCommandFillsForm(t *testing.T) {
	v := newView(t)
	v.PasteCommand(`docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-4B --max-model-len 32k --kv-cache-dtype fp8 --no-enable-prefix-caching --max-num-seqs 32`)
	c := v.Form.Config()
	if c.Model != "Qwen/Qwen3-4B" || c.Tag != "v0.11.0" {
		t.Errorf("model/tag = %q/%q, want Qwen/Qwen3-4B/v0.11.0", c.Model, c.Tag)
	}
	for name, want := range map[string]string{"--max-model-len": "32k", "--kv-cache-dtype": "fp8", "--enable-prefix-caching": "false", "--max-num-seqs": "32"} {
		if got, ok := c.Get(name); !ok || got != want {
			t.Errorf("%s = %q (set %v), want %q", name, got, ok, want)
		}
	}
	if !strings.Contains(v.Form.ServePreview(), "--no-enable-prefix-caching") {
		t.Errorf("serve preview %q lacks the negated flag", v.Form.ServePreview())
	}
	if msg := v.PasteMessage(); !strings.Contains(msg, "Filled") {
		t.Errorf("paste message = %q", msg)
	}

	v.PasteCommand("ls -la")
	if msg := v.PasteMessage(); !strings.Contains(msg, "docker") {
		t.Errorf("a non-command paste says %q, want a hint naming docker", msg)
	}
	if v.Form.Config().Model != "Qwen/Qwen3-4B" {
		t.Error("a failed paste changed the form")
	}
}

// Presets load into the form.
func TestPresetLoads(t *testing.T) {
	v := newView(t)
	v.Form.SetModel("m/x")
	v.ApplyPreset("Low VRAM (fp8 KV cache)")
	if got, _ := v.Form.Config().Get("--kv-cache-dtype"); got != "fp8" {
		t.Errorf("--kv-cache-dtype = %q after the low-VRAM preset", got)
	}
	v.SavePreset("mine")
	v.ApplyPreset("Untuned baseline")
	if len(v.Form.Config().Flags) != 0 {
		t.Errorf("baseline left flags %v", v.Form.Config().Flags)
	}
	v.ApplyPreset("mine")
	if got, _ := v.Form.Config().Get("--kv-cache-dtype"); got != "fp8" {
		t.Errorf("saved preset did not restore --kv-cache-dtype (got %q)", got)
	}
}

// A recognised start-up failure shows its cause and a one-click fix.
func TestStartupFailureOffersFix(t *testing.T) {
	v := newView(t)
	v.Form.SetModel("m/x")
	v.Form.SetFlagText("--max-model-len", "131072")
	err := &vllm.StartupError{Kind: vllm.ErrMaxModelLen, SuggestedMaxModelLen: 44320,
		Explanation: "max model length too large for this card's KV cache", Fix: "try --max-model-len 44320"}
	v.ShowStartupError(errors.Join(err))
	text, fix := v.Failure()
	if !strings.Contains(text, "KV cache") || !strings.Contains(text, "44320") {
		t.Errorf("banner = %q", text)
	}
	if fix == "" {
		t.Fatal("no fix button")
	}
	v.ApplyFix()
	if got, _ := v.Form.Config().Get("--max-model-len"); got != "44320" {
		t.Errorf("after the fix --max-model-len = %q, want 44320", got)
	}
	if text, _ := v.Failure(); text != "" {
		t.Errorf("banner still shown after the fix: %q", text)
	}
}

func setToken(t *testing.T, v *launchview.View, s string) {
	t.Helper()
	launchview.SetTokenForTest(v, s)
}
