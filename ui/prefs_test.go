package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/vllm"
)

// The saved launch keeps the model and flags but neither the HF token nor
// a port that was picked because 8000 was busy once.
func TestSaveLaunchForgetsTokenAndPort(t *testing.T) {
	a := test.NewTempApp(t)
	c := vllm.LaunchConfig{Model: "Qwen/Qwen2.5-1.5B-Instruct", Port: 43123, HFToken: "hf_secret_token"}
	saveLaunch(a.Preferences(), c)
	got, ok := loadLaunch(a.Preferences())
	if !ok || got.Model != c.Model || got.Port != 0 || got.HFToken != "" {
		t.Errorf("loaded %+v (ok %v), want the model without port or token", got, ok)
	}
}
