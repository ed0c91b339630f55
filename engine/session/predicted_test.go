package session_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// The demo can imitate any card RigBench knows serving a model it knows:
// the simulator's profile is the prediction's, so the demo's KV cache is
// the one `predict --gpu` gives for the same launch, and a profile name is
// still a profile.
func TestDemoOfAKnownCard(t *testing.T) {
	in := session.TargetInput{Kind: session.Demo, SimProfile: "RTX 4090",
		Launch: vllm.LaunchConfig{Model: vllm.ModelH100, Flags: []vllm.FlagValue{{Name: "--max-model-len", Value: "32768"}}}}
	cfg, _, err := in.Demo()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Profile.GPUName != "NVIDIA GeForce RTX 4090" || cfg.Profile.Model != vllm.ModelH100 {
		t.Fatalf("profile %q serving %q", cfg.Profile.GPUName, cfg.Profile.Model)
	}
	_, kv, err := sim.Facts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	card, _ := predict.FindCard("RTX 4090")
	m, _ := predict.BuiltinModel(vllm.ModelH100)
	pr, err := predict.Predict(predict.Input{Card: card, Model: m, Args: []string{"--max-model-len", "32768"}})
	if err != nil {
		t.Fatal(err)
	}
	if kv != pr.Memory.KVTokens || kv == 0 {
		t.Errorf("the demo of an RTX 4090 holds %d tokens of KV, predict says %d", kv, pr.Memory.KVTokens)
	}
	if p, err := session.SimProfile("h100-80gb", ""); err != nil || p.Name != "h100-80gb" {
		t.Errorf("a profile name: %v %q", err, p.Name)
	}
	if _, err := session.SimProfile("RTX 9999", ""); err == nil || !strings.Contains(err.Error(), "a card RigBench knows") {
		t.Errorf("neither a profile nor a card: %v", err)
	}
}
