package ui

import (
	"context"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
)

// Services are what the window talks to. Tests replace single fields; New
// uses DefaultServices.
type Services struct {
	// Detect returns the hardware snapshot.
	Detect func(ctx context.Context) hardware.Snapshot
	// Docker checks the Docker daemon and the NVIDIA runtime.
	Docker func(ctx context.Context) hwview.Docker
	// Session runs one benchmark end to end.
	Session func(ctx context.Context, o session.Options) (*rundoc.Run, error)
	// Launch starts a vLLM container for the Launch view; nil where
	// RigBench cannot start containers.
	Launch launchview.LaunchFunc
	// SimSpeed divides the simulator's durations in demo mode (1 = real
	// time; the screenshot tour and tests go faster).
	SimSpeed float64
}

// DefaultServices wires the real detection, session, Docker check and
// launcher.
func DefaultServices() Services {
	return Services{
		Detect:   func(ctx context.Context) hardware.Snapshot { return probe.Detect(ctx) },
		Docker:   func(ctx context.Context) hwview.Docker { return checkDocker(ctx, true) },
		Session:  session.Run,
		Launch:   dockerLaunch(),
		SimSpeed: 1,
	}
}
