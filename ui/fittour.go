//go:build tour

package ui

import (
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/vllm"
)

// tourFit shows "Will it fit?" on the demo's page for a launch that does
// not fit (--gpu-memory-utilization 0.65): the predicted memory split,
// the verdict and the fixes as buttons; then the flags go back.
func (u *UI) tourFit(step func(func()), shot func(string, time.Duration)) {
	var cfg vllm.LaunchConfig
	step(func() {
		cfg = u.Launch.Form.Config()
		u.Launch.Form.SetFlagText("--gpu-memory-utilization", "0.65")
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		done := false
		step(func() { done = !u.Launch.FitPending() && strings.HasPrefix(u.Launch.FitVerdict(), "Does not fit") })
		if done {
			break
		}
	}
	step(u.Launch.RevealFit)
	shot("2d-launch-fit", 800*time.Millisecond)
	step(func() { u.Launch.Form.SetConfig(cfg) })
}
