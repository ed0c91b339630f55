//go:build tour

package ui

import (
	"time"

	"github.com/rigbench/rigbench/engine/vllm"
)

// tourDemoPaste is the screenshot tour's shot of a command pasted on the
// demo's page that names another model: the page says the demo serves its
// own simulated model. The form is put back as it was for the rest of the
// tour.
func (u *UI) tourDemoPaste(step func(func()), shot func(string, time.Duration)) {
	var cfg vllm.LaunchConfig
	step(func() {
		cfg = u.Launch.Form.Config()
		u.Launch.PasteCommand("vllm serve InternScience/Agents-A1-4B-FP8 --max-num-seqs 16")
	})
	shot("2c-launch-demo-pasted", 800*time.Millisecond)
	step(func() { u.Launch.Form.SetConfig(cfg) })
}
