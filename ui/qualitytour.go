//go:build tour

package ui

import (
	"errors"
	"time"

	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/runview"
)

// tourQuality shows the Run tab's Quality check on the demo: GSM8K on 200
// of the demo's items with the launch as it is, then with a 4-bit KV cache
// against it, the loss on screen; then the flags go back and the section
// closes.
func (u *UI) tourQuality(step func(func()), shot func(string, time.Duration)) error {
	check := func() error {
		step(u.Run.CheckQuality)
		select {
		case <-u.Run.QualityDone():
		case <-time.After(2 * time.Minute):
			return errors.New("the quality check did not end in 2 minutes")
		}
		var why string
		step(func() {
			if u.Run.QualityResult() == nil {
				why = u.Run.QualityStatus()
			}
		})
		if why != "" {
			return errors.New("the quality check failed: " + why)
		}
		return nil
	}
	var saved vllm.LaunchConfig
	step(func() {
		saved = u.Launch.Form.Config()
		u.SelectTab(TabRun)
		u.Run.OpenQuality(true)
		u.Run.SetQualityProbe(runview.ProbeGSM8K, "200")
	})
	if err := check(); err != nil {
		return err
	}
	step(func() {
		c := saved
		c.Set("--kv-cache-dtype", "int4_per_token_head")
		u.Launch.Form.SetConfig(c)
		opts := u.Run.QualityBaselines()
		u.Run.SetQualityBaseline(opts[len(opts)-1])
	})
	if err := check(); err != nil {
		return err
	}
	shot("3b-run-quality", time.Second)
	step(func() {
		u.Launch.Form.SetConfig(saved)
		u.Run.OpenQuality(false)
	})
	return nil
}
