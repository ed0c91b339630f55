package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/docker/docker/api/types/system"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/wording"
)

// dockerCheckTimeout bounds the Docker check at start-up: a daemon that
// does not answer in this time is reported as not running rather than
// holding up the Hardware view.
const dockerCheckTimeout = 8 * time.Second

// infoer is the part of the Docker client that reports the daemon's
// runtimes; engine/docker's API leaves it out, the real client has it.
type infoer interface {
	Info(ctx context.Context) (system.Info, error)
}

// checkDocker asks the daemon whether it runs and whether it can hand GPUs
// to containers (an "nvidia" runtime, registered by the NVIDIA Container
// Toolkit). With cleanup it also removes containers a crashed RigBench left
// behind, once, at start-up. It runs off the UI goroutine.
func checkDocker(ctx context.Context, cleanup bool, opts ...docker.Option) hwview.Docker {
	ctx, cancel := context.WithTimeout(ctx, dockerCheckTimeout)
	defer cancel()
	l, err := docker.New(ctx, opts...)
	if err != nil {
		return hwview.Docker{Checked: true, Problem: dockerProblem(err)}
	}
	defer l.Close()
	d := hwview.Docker{Checked: true, Available: true}
	if cleanup {
		// A failure here only leaves a stopped container behind; the
		// next start tries again, so it is not worth a warning.
		_, _ = l.CleanupLeftovers(ctx)
	}
	in, ok := l.API().(infoer)
	if !ok {
		d.Problem = "RigBench could not ask Docker about its runtimes; if launching fails, check that the NVIDIA Container Toolkit is installed."
		return d
	}
	info, err := in.Info(ctx)
	if err != nil {
		d.Problem = "Docker did not say which runtimes it has (" + err.Error() + "); if launching fails, check that the NVIDIA Container Toolkit is installed."
		return d
	}
	d.Version = info.ServerVersion
	d.NVIDIARuntime = hasNVIDIARuntime(info)
	if !d.NVIDIARuntime {
		d.Problem = "Docker " + info.ServerVersion + " has no NVIDIA runtime, so containers cannot use the GPU: install the NVIDIA Container Toolkit, run `sudo nvidia-ctk runtime configure --runtime=docker`, restart Docker, and meanwhile benchmark an existing endpoint or the demo."
	}
	return d
}

// hasNVIDIARuntime reports whether the daemon lists the NVIDIA runtime
// ("nvidia", or a variant such as "nvidia-cdi") or uses it by default.
func hasNVIDIARuntime(info system.Info) bool {
	if strings.HasPrefix(info.DefaultRuntime, "nvidia") {
		return true
	}
	for name := range info.Runtimes {
		if strings.HasPrefix(name, "nvidia") {
			return true
		}
	}
	return false
}

// dockerProblem is the sentence the Hardware view shows for a daemon that
// cannot be used: what happened and what to do next.
func dockerProblem(err error) string {
	var de *docker.Error
	if errors.As(err, &de) {
		s := wording.Sentence(de.Message)
		if de.Hint != "" {
			s = wording.Sentence(strings.TrimSuffix(de.Message, ".") + ": " + de.Hint)
		}
		return s + " Meanwhile, benchmark an existing endpoint or the demo."
	}
	return wording.Sentence("Docker could not be reached ("+err.Error()+")") + " Check that Docker is installed and running, or benchmark an existing endpoint or the demo."
}

// dockerLaunch is the Launch view's LaunchFunc on the local Docker daemon:
// engine/session's one launch sequence with the view's progress bar and log
// pane as observers. Leftovers were removed once at start-up (checkDocker),
// so a launch leaves other containers alone.
func dockerLaunch(opts ...docker.Option) launchview.LaunchFunc {
	return func(ctx context.Context, cfg vllm.LaunchConfig, p launchview.Progress) (*session.Server, error) {
		d := &session.DockerLauncher{Config: cfg, Options: opts, KeepLeftovers: true}
		if p.Pull != nil {
			d.Pull = func(pp docker.PullProgress) { p.Pull(pp.Bytes, pp.BytesTotal) }
		}
		return d.Launch(ctx, p.Log)
	}
}
