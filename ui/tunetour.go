//go:build tour

package ui

import (
	"fmt"
	"os"
	"time"

	"github.com/rigbench/rigbench/ui/target"
)

// tourTune is the screenshot tour's part for the Tune view: the form
// before a demo sweep (two dimensions, the variant count and estimate),
// the sweep in progress, and the verdict, chart and table after it.
func (u *UI) tourTune(step func(func()), shot func(string, time.Duration)) {
	step(func() {
		u.Target.Set(target.Choice{Kind: target.Demo})
		cfg := u.Launch.Form.Config()
		cfg.Set("--max-num-seqs", "8")
		u.Launch.Form.SetConfig(cfg)
		u.SelectTab(TabTune)
		u.Tune.AddDimension("--kv-cache-dtype", "auto,fp8")
		u.Tune.AddDimension("--max-num-seqs", "8,64")
		u.Tune.SetWorkload("1K,16K", "16", "30s")
		u.Tune.SetObjective("total-tok-s@16Kx16", "ttft_p90<=20s")
	})
	shot("11-tune-before", time.Second)
	var done <-chan struct{}
	step(func() { u.Tune.Start(); done = u.Tune.Done() })
	shot("12-tune-during", 3*time.Second)
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		fmt.Fprintln(os.Stderr, "rigbench tour: the Tune sweep did not finish in 5 minutes")
	}
	shot("13-tune-after", time.Second)
}
