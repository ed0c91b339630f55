package ui

import (
	"context"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
)

// Services are what the window talks to: every engine object a view needs
// (a session, a launcher, a sweep's runner) is made by one of them, so the
// views hold no engine sequence of their own. Tests replace single fields
// (a nil Sweep, Resweep or Quality is the default's); New uses DefaultServices.
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
	// LaunchCluster starts one server over several rigs for the Launch
	// view (nil: the view refuses a cluster with a sentence).
	LaunchCluster launchview.ClusterLaunchFunc
	// Contexts lists the Docker contexts the rig picker offers (nil: none).
	Contexts func() []string
	// ConnectRig reaches a rig by name (rig.Parse, rig.Connect with the
	// user's ~/.ssh); nil: only this computer's Docker is offered.
	ConnectRig func(ctx context.Context, name string) (*rig.Conn, error)
	// DetectRig reads a rig's hardware and checks its Docker through conn
	// (images: what nvidia-smi may run in, the Launch page's image first).
	DetectRig func(ctx context.Context, conn *rig.Conn, images []string) (hardware.Snapshot, hwview.Docker)
	// LaunchOn is the Launch view's LaunchFunc on a rig.
	LaunchOn func(conn *rig.Conn) launchview.LaunchFunc
	// Sweep builds the Tune view's sweep from its input (the form's
	// fields and the chosen target, the CLI's tune.SpecInput), each
	// launch variant started as how says.
	Sweep func(in tune.SpecInput, how session.Launching) (*tune.Runner, error)
	// Resweep rebuilds a kept sweep's runner, to resume it
	// (tune.NewRunner, the CLI's too).
	Resweep func(spec tune.Spec, how session.Launching) (*tune.Runner, error)
	// Quality runs a quality probe against a target (the Run tab's
	// Quality check; session.Quality, the CLI's too).
	Quality func(ctx context.Context, t session.QualityTarget, probe session.QualityProbe) (*quality.Result, error)
	// SimSpeed divides the simulator's durations in demo mode (1 = real
	// time; the screenshot tour and tests go faster).
	SimSpeed float64
}

// DefaultServices wires the real detection, session, Docker check and
// launcher.
func DefaultServices() Services {
	return Services{
		Detect:        func(ctx context.Context) hardware.Snapshot { return probe.Detect(ctx) },
		Docker:        func(ctx context.Context) hwview.Docker { return checkDocker(ctx, true) },
		Session:       session.Run,
		Launch:        dockerLaunch(),
		LaunchCluster: clusterLaunch(session.Launching{}),
		Contexts:      defaultContexts,
		ConnectRig:    connectRig,
		DetectRig: func(ctx context.Context, conn *rig.Conn, images []string) (hardware.Snapshot, hwview.Docker) {
			return detectRig(ctx, conn, images)
		},
		LaunchOn: func(conn *rig.Conn) launchview.LaunchFunc { return rigDockerLaunch(conn) },
		Sweep:    sweep,
		Resweep:  tune.NewRunner,
		Quality:  session.Quality,
		SimSpeed: 1,
	}
}

// sweep is Services.Sweep: tune.SpecInput's reader and runner.
func sweep(in tune.SpecInput, how session.Launching) (*tune.Runner, error) { return in.Runner(how) }
