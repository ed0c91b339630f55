package predict_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
)

// FindCard takes what users type and NVML's names, and says when a name
// is ambiguous or unknown.
func TestFindCard(t *testing.T) {
	for typed, want := range map[string]string{
		"RTX 4090":                "NVIDIA GeForce RTX 4090",
		"4090":                    "NVIDIA GeForce RTX 4090",
		"rtx3060":                 "NVIDIA GeForce RTX 3060",
		"3060":                    "NVIDIA GeForce RTX 3060",
		"4060 Ti":                 "NVIDIA GeForce RTX 4060 Ti",
		"NVIDIA GeForce RTX 3090": "NVIDIA GeForce RTX 3090",
		"NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "NVIDIA RTX PRO 6000 Blackwell",
		"NVIDIA H100 80GB HBM3":                             "NVIDIA H100 80GB HBM3",
	} {
		c, err := predict.FindCard(typed)
		if err != nil || c.Name != want {
			t.Errorf("FindCard(%q) = %q, %v; want %q", typed, c.Name, err, want)
		}
	}
	if _, err := predict.FindCard("H100"); err == nil || !strings.Contains(err.Error(), "could be") || !strings.Contains(err.Error(), "H100 PCIe") {
		t.Errorf("H100: %v, want the two H100s listed", err)
	}
	if _, err := predict.FindCard("RTX 9999"); err == nil || !strings.Contains(err.Error(), "--list-cards") {
		t.Errorf("unknown card: %v", err)
	}
	if _, err := predict.FindCard("  "); err == nil {
		t.Error("an empty name found a card")
	}
}

// DetectedCard counts the GPUs of the first one's kind and fills what NVML
// did not report from the data sheet; no GPU is no card.
func TestDetectedCard(t *testing.T) {
	snap := &hardware.Snapshot{GPUs: []hardware.GPU{
		{Name: "NVIDIA GeForce RTX 3090", VRAMTotalBytes: 24 << 30},
		{Name: "NVIDIA GeForce RTX 3090", VRAMTotalBytes: 24 << 30, MemoryBandwidthGBs: 936},
		{Name: "NVIDIA GeForce RTX 3060", VRAMTotalBytes: 12 << 30, MemoryBandwidthGBs: 360},
	}}
	c, n, ok := predict.DetectedCard(snap)
	if !ok || n != 2 || c.MemoryGiB != 24 || c.BandwidthGBs != 936 || c.TFLOPS == 0 || c.Source != predict.SourceDetected {
		t.Errorf("DetectedCard = %+v, %d, %v", c, n, ok)
	}
	spark := &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GB10", MemoryBandwidthGBs: 273}}}
	if c, _, ok := predict.DetectedCard(spark); !ok || c.MemoryGiB != 128 {
		t.Errorf("a GB10 reporting no memory: %+v %v, want the data sheet's 128 GiB", c, ok)
	}
	if _, _, ok := predict.DetectedCard(&hardware.Snapshot{GPUs: []hardware.GPU{}}); ok {
		t.Error("no GPU gave a card")
	}
	if _, _, ok := predict.DetectedCard(&hardware.Snapshot{GPUs: []hardware.GPU{{Name: "Some Unknown GPU"}}}); ok {
		t.Error("an unknown card reporting nothing gave a card")
	}
}

// A Mixtral-style mixture of experts (num_local_experts, experts as wide
// as intermediate_size) counts two experts' MLPs as active and all eight
// in the weights: Mixtral 8×7B is 12.9 B active of 46.7 B.
func TestMixtureOfExpertsParams(t *testing.T) {
	c := predict.Config{Layers: 32, Heads: 32, KVHeads: 8, Hidden: 4096, HeadDim: 128, Vocab: 32000, MaxLen: 32768,
		Intermediate: 14336, LocalExperts: 8, ExpertsPerToken: 2, TorchDtype: "bfloat16"}
	m := predict.ModelFromConfig("mistralai/Mixtral-8x7B-Instruct-v0.1", c, 0)
	if math.Abs(m.Params/12.9e9-1) > 0.05 {
		t.Errorf("active parameters %.3g, want about 12.9e9", m.Params)
	}
	if total := m.WeightsGiB * (1 << 30) / 2; math.Abs(total/46.7e9-1) > 0.05 {
		t.Errorf("weights hold %.3g parameters, want about 46.7e9", total)
	}
}

// Learning leaves the prior alone when no run is on the card, and falls
// back to one common factor when every cell is at one context (the
// attention cannot be told apart from the rest).
func TestLearnFallbacks(t *testing.T) {
	p := sim.DefaultProfile()
	card, _ := predict.ProfileCard(p)
	prior := predict.Prior(predict.Card{Name: "a card no profile has"}, "")
	other := &rundoc.Run{Simulated: false, Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 4090"}}},
		Server: rundoc.Server{Model: p.Model}, Plan: rundoc.Plan{MaxOutput: 8192, DurationS: 30}}
	if e := predict.Learn(prior, card, []*rundoc.Run{other}, nil); e != prior {
		t.Errorf("a run on another card changed the prior: %+v", e)
	}
	// One context, the profile's own rates: the fitted factors make the
	// generic prior predict them.
	run := &rundoc.Run{Simulated: true, Server: rundoc.Server{Model: p.Model}, Plan: rundoc.Plan{MaxOutput: 8192, DurationS: 30}}
	for _, n := range []int{1, 2, 4, 8} {
		rate := 1 / p.DecodeStepS(n, 112+600)
		run.Cells = append(run.Cells, rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: n, Status: rundoc.StatusValid,
			TotalTokS: rate * float64(n), PerRequestTokS: rate, MeasuredS: 30})
	}
	e := predict.Learn(prior, card, []*rundoc.Run{run}, nil)
	if e.Runs != 1 || e.Source != "learned" {
		t.Fatalf("learned %+v", e)
	}
	pr, err := predict.Predict(predict.Input{Card: card, Model: predict.ProfileModel(p), Efficiency: e,
		Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 8}, MaxOutput: 8192, DurationS: 30}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pr.Cells {
		if want := run.Find(rundoc.PhaseDecode, 0, c.Concurrency).TotalTokS; math.Abs(c.TotalTokS/want-1) > 0.05 {
			t.Errorf("0×%d learned %.1f, the run %.1f", c.Concurrency, c.TotalTokS, want)
		}
	}
}

// TestPredictsSpeculation: a speculative launch is predicted at the
// tokens its drafted steps yield over their longer steps (the
// simulator's time model, for a prompt with nothing to copy), and
// learning leaves drafting cells out.
func TestPredictsSpeculation(t *testing.T) {
	card, err := predict.FindCard("RTX 3060")
	if err != nil {
		t.Fatal(err)
	}
	p := sim.DefaultProfile()
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, MaxOutput: 8192, DurationS: 30}
	in := predict.Input{Card: card, Model: predict.ProfileModel(p), Plan: plan}
	plain, err := predict.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Args = []string{"--speculative-config", `{"method":"mtp","num_speculative_tokens":2}`}
	spec, err := predict.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	sp := &sim.Speculation{Method: "mtp", Tokens: 2}
	want := p.SpecTokensPerStep(sp) * p.DecodeStepS(1, 700) / p.SpecDecodeStepS(sp, 1, 700)
	if got := spec.Cells[0].TotalTokS / plain.Cells[0].TotalTokS; math.Abs(got-want) > 0.02*want || got < 1.5 {
		t.Errorf("mtp:2 predicted %.2f× the plain launch, want %.2f× (tokens per step over the longer step)", got, want)
	}
	run := &rundoc.Run{Simulated: true, Server: rundoc.Server{Model: p.Model}, Plan: plan,
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 200, PerRequestTokS: 200,
			MeasuredS: 30, CellSpec: rundoc.CellSpec{SpecAcceptLengthEff: 2.3, StepsPerS: 87}}}}
	if e := predict.Learn(predict.Prior(card, p.Model), card, []*rundoc.Run{run}, nil); e.Runs != 0 {
		t.Errorf("a drafting run was learned from: %+v", e)
	}
}
