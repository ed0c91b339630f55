package bench

import (
	"runtime"
	"time"
)

// cpuShare measures RigBench's own CPU use over a decode window: the
// process's CPU time (user + system, all its threads) over the window's
// wall time and the machine's cores,
//
//	client_cpu_pct = 100 × Δcpu / (Δwall × cores)
//
// so 100 means every core was busy with RigBench, and a client that keeps
// the machine busy cannot tell a slow server from its own slowness
// (diagnose: client-bound). Wall time, not the card's: the CPU time is the
// host's.
type cpuShare struct {
	cpu0 time.Duration
	at0  time.Time
	on   bool
}

// start takes the first reading, as the window opens; without a
// Runner.ClientCPU nothing is measured.
func (c *cpuShare) start(r *Runner) {
	if r.ClientCPU == nil {
		return
	}
	c.cpu0, c.at0, c.on = r.ClientCPU(), r.Now(), true
}

// pct takes the last reading, as the window closes, and returns the share
// in percent (0 when not measured), rounded as the figure is stored.
func (c *cpuShare) pct(r *Runner) float64 {
	if !c.on {
		return 0
	}
	wall := r.Now().Sub(c.at0)
	cores := r.Cores
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	if wall <= 0 {
		return 0
	}
	return round(min(100, 100*(r.ClientCPU()-c.cpu0).Seconds()/(wall.Seconds()*float64(cores))), 1)
}
