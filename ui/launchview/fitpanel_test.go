//go:build !race

// The "Will it fit?" panel predicts on a goroutine of its own and shows the
// answer through fyne.Do, which Fyne's test driver runs inline on that
// goroutine: the race detector flags it although the real driver
// serialises it (see hardware_test.go). make test runs these without -race.

package launchview_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/predicted"
	"github.com/rigbench/rigbench/ui/target"
)

// fitView is a Launch view on target k with the panel on, learning from a
// real, empty history in a temp folder; shown receives a signal after
// each prediction the panel shows.
type fitView struct {
	*launchview.View
	ch    *target.Chooser
	src   predicted.Source
	shown chan struct{}
}

func newFitView(t *testing.T, k target.Kind) fitView {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ch := target.NewChooser(k)
	f := fitView{View: launchview.New(a, w, ch, nil), ch: ch,
		src:   predicted.Source{History: db, CacheDir: filepath.Join(dir, "models")},
		shown: make(chan struct{}, 64)}
	launchview.SetAfterFitForTest(f.View, func() {
		select {
		case f.shown <- struct{}{}:
		default:
		}
	})
	w.SetContent(f.Content())
	w.Resize(fyne.NewSize(1280, 800))
	f.SetPrediction(f.src)
	return f
}

// waitFit waits until no prediction is to come and ok holds (a minute at
// most: the machine may be busy, but a prediction is milliseconds of work).
func waitFit(t *testing.T, f fitView, what string, ok func() bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for f.FitPending() || !ok() {
		select {
		case <-f.shown:
		case <-deadline:
			t.Fatalf("waiting for %s: the panel says %q (pending %v)", what, f.FitText(), f.FitPending())
		}
	}
}

// Issue "Before launching": the demo's default launch fits, as `predict
// --demo` says; --gpu-memory-utilization 0.65 does not, with the smallest
// fix as a button; one tap sets the flag in the form and it fits again.
func TestFitPanelFitsAndAppliesAFix(t *testing.T) {
	f := newFitView(t, target.Demo)
	waitFit(t, f, "the demo's verdict", func() bool { return strings.HasPrefix(f.FitVerdict(), "Fits") })
	if v := f.FitVerdict(); !strings.Contains(v, "Fits: the KV cache holds 431,632 tokens") {
		t.Errorf("verdict %q, want the default profile's 431,632 tokens", v)
	}
	if !f.FitShown() || !strings.Contains(f.FitText(), "KV cache") || !strings.Contains(f.FitText(), "GiB") {
		t.Errorf("the panel says %q, want the memory split labelled in GiB", f.FitText())
	}

	f.Form.SetFlagText("--gpu-memory-utilization", "0.65")
	waitFit(t, f, "the verdict at 0.65", func() bool { return strings.HasPrefix(f.FitVerdict(), "Does not fit") })
	const fix = "Apply: --max-model-len 37888"
	if !slices.Contains(f.FitFixes(), fix) {
		t.Fatalf("fixes %q, want %q", f.FitFixes(), fix)
	}
	if h := f.FitHeadline(); h != "" {
		t.Errorf("a launch that does not fit shows the headline %q", h)
	}
	test.Tap(f.FitFixButton(fix))
	if got, _ := f.Form.Config().Get("--max-model-len"); got != "37888" {
		t.Errorf("after the fix --max-model-len is %q, want 37888", got)
	}
	if got, _ := f.Form.Config().Get("--gpu-memory-utilization"); got != "0.65" {
		t.Errorf("the fix changed --gpu-memory-utilization to %q", got)
	}
	waitFit(t, f, "the verdict after the fix", func() bool { return strings.HasPrefix(f.FitVerdict(), "Fits") })
}

// Issue "Before launching": predict and the Launch view give the same
// figures for the same launch (predict.Request.Do, as the CLI calls it),
// every one labelled predicted.
func TestFitPanelShowsPredictsFigures(t *testing.T) {
	f := newFitView(t, target.Demo)
	waitFit(t, f, "the first prediction", func() bool { return f.FitVerdict() != "" })
	f.Form.SetFlagText("--max-num-seqs", "64")
	waitFit(t, f, "the prediction at 64 sequences", func() bool { return f.FitVerdict() != "" })
	plan := rundoc.QuickPlan()
	plan.Concurrency = []int{1, 8, 64}
	f.SetPredictPlan(plan)
	waitFit(t, f, "the headline", func() bool { return f.FitHeadline() != "" })

	t.Logf("the panel says:\n%s", f.FitText())
	c := f.Form.Config()
	cfg, err := launchview.DemoConfig(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := predict.Request{Demo: true, Profile: cfg.Profile, Args: launchview.DemoArgs(c), Plan: plan,
		History: f.src.History, Lookup: predict.Lookup{CacheDir: f.src.CacheDir, Offline: true}}.Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.FitVerdict(); got != pr.Verdict() {
		t.Errorf("verdict %q, predict says %q", got, pr.Verdict())
	}
	h := f.FitHeadline()
	if !strings.HasPrefix(h, "Predicted: ") || !strings.Contains(h, pr.Basis()) {
		t.Errorf("headline %q, want it labelled predicted with the basis %q", h, pr.Basis())
	}
	var first, best *predict.Cell
	for i, cell := range pr.Cells {
		if cell.Phase != rundoc.PhaseDecode || cell.TotalTokS == 0 {
			continue
		}
		if first == nil {
			first = &pr.Cells[i]
		}
		if best == nil || cell.TotalTokS > best.TotalTokS {
			best = &pr.Cells[i]
		}
	}
	if first == nil {
		t.Fatal("predict gave no decode cell that runs")
	}
	for _, cell := range []*predict.Cell{first, best} {
		d := cell.Doc()
		want := rundoc.CellName(cell.Context, cell.Concurrency) + " ≈ " + rundoc.FigTotalTokS.Text(&d) + " tok/s"
		if !strings.Contains(h, want) {
			t.Errorf("headline %q lacks predict's %q", h, want)
		}
	}
	for _, part := range pr.Parts() {
		if want := fmt.Sprintf("%s %.2f GiB", part.Name, part.GiB); !strings.Contains(f.FitText(), want) {
			t.Errorf("the panel %q lacks the part %q", f.FitText(), want)
		}
	}
}

// Without a card the panel says so in one sentence and points to the
// demo; an endpoint shows no panel; a model nothing on this machine knows
// is said as the offline lookup says it, with the Hub lookup offered.
func TestFitPanelWithoutACardOrModel(t *testing.T) {
	f := newFitView(t, target.Launch)
	if f.FitShown() {
		t.Errorf("before detection the panel shows %q", f.FitText())
	}
	f.SetHardware(noGPU(), hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true})
	f.Form.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	waitFit(t, f, "the no-card sentence", func() bool { return f.FitVerdict() != "" })
	if v := f.FitVerdict(); !strings.Contains(v, "no NVIDIA driver found") || !strings.Contains(v, "demo") || strings.Count(v, ". ") > 0 {
		t.Errorf("without a card the panel says %q, want one sentence naming the cause and the demo", v)
	}
	f.ch.Set(target.Choice{Kind: target.Endpoint, URL: "http://127.0.0.1:1"})
	if f.FitShown() {
		t.Errorf("for an endpoint the panel shows %q", f.FitText())
	}
}

// llamaConfig is the part of an 8B Llama's config.json a prediction reads.
const llamaConfig = `{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
 "max_position_embeddings": 131072, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
 "num_key_value_heads": 8, "torch_dtype": "bfloat16", "vocab_size": 128256}`

// A model nothing on this machine knows: the live prediction never asks
// the network and says so in the lookup's sentence with the Hub lookup
// offered; one tap asks a (local) Hub once, and the panel then predicts
// the model from what it fetched.
func TestFitPanelLooksAModelUpOnce(t *testing.T) {
	const id = "acme/llama-test-8b"
	var asked atomic.Int32
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		switch r.URL.Path {
		case "/api/models/" + id:
			fmt.Fprintf(w, `{"id": %q, "siblings": [{"rfilename": "config.json", "size": %d},
				{"rfilename": "model.safetensors", "size": 16060522496}]}`, id, len(llamaConfig))
		case "/" + id + "/resolve/main/config.json":
			fmt.Fprint(w, llamaConfig)
		default:
			http.NotFound(w, r)
		}
	}))
	defer hub.Close()
	t.Setenv("HF_ENDPOINT", hub.URL)
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	t.Setenv("HF_TOKEN", "")

	f := newFitView(t, target.Launch)
	f.SetHardware(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060", VRAMTotalBytes: 12 << 30, MemoryBandwidthGBs: 360}}},
		hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true})
	f.Form.SetModel(id)
	waitFit(t, f, "the lookup button", func() bool { return f.FitLookupButton() != nil })
	if v := f.FitVerdict(); !strings.Contains(v, "offline") || !strings.Contains(v, id) {
		t.Errorf("an unknown model says %q, want the offline lookup's sentence", v)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("typing the model asked the Hub %d times", n)
	}
	test.Tap(f.FitLookupButton())
	waitFit(t, f, "the model's prediction", func() bool { return strings.Contains(f.FitText(), "memory split of "+id) })
	t.Logf("after the lookup the panel says:\n%s\nfixes %q", f.FitText(), f.FitFixes())
	if n := asked.Load(); n == 0 {
		t.Error("the lookup did not ask the Hub")
	}
	if v := f.FitVerdict(); !strings.HasPrefix(v, "Fits") && !strings.HasPrefix(v, "Does not fit") {
		t.Errorf("after the lookup the verdict is %q", v)
	}
	// Typing elsewhere predicts again from the cache, without the Hub.
	before := asked.Load()
	f.Form.SetFlagText("--max-model-len", "8192")
	waitFit(t, f, "the prediction at 8K", func() bool { return strings.Contains(f.FitVerdict(), "8,192") })
	if n := asked.Load(); n != before {
		t.Errorf("a later edit asked the Hub %d more times", n-before)
	}
}
