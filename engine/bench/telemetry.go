package bench

import "github.com/rigbench/rigbench/hardware"

// Telemetry samples the GPUs during a decode window. hardware.Sampler
// implements it; a run without a GPU passes nil.
type Telemetry interface {
	// StartWindow begins collecting samples; calling stop ends the window
	// and returns the samples taken, with T in seconds since StartWindow.
	StartWindow() (stop func() []hardware.GPUSample)
}
