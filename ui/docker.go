package ui

import (
	"context"
	"errors"
	"strings"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/wording"
)

// checkDocker is the Hardware view's Docker check: engine/session's, worded
// for the view. It runs off the UI goroutine.
func checkDocker(ctx context.Context, cleanup bool, opts ...docker.Option) hwview.Docker {
	return dockerFindings(session.CheckDocker(ctx, cleanup, opts...))
}

// dockerFindings words engine/session's Docker status for the views; the
// Container Toolkit's remedy is engine/docker's (ToolkitHint).
func dockerFindings(st session.DockerStatus) hwview.Docker {
	if st.Err != nil {
		return hwview.Docker{Checked: true, Problem: dockerProblem(st.Err)}
	}
	d := hwview.Docker{Checked: true, Available: true, Version: st.Version, NVIDIARuntime: st.NVIDIARuntime, Desktop: st.Desktop}
	switch {
	case errors.Is(st.RuntimesErr, session.ErrNoRuntimeInfo):
		d.Problem = "RigBench could not ask Docker about its runtimes; if launching fails, " + docker.ToolkitHint + "."
	case st.RuntimesErr != nil:
		d.Problem = "Docker did not say which runtimes it has (" + st.RuntimesErr.Error() + "); if launching fails, " + docker.ToolkitHint + "."
	case st.Problem() != nil:
		d.Problem = dockerProblem(st.Problem())
	}
	return d
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
func dockerLaunch(opts ...docker.Option) launchview.LaunchFunc { return rigDockerLaunch(nil, opts...) }

// rigDockerLaunch is dockerLaunch on a rig (nil: the local daemon); the
// rig's leftovers were removed when it was detected (detectRig).
func rigDockerLaunch(conn *rig.Conn, opts ...docker.Option) launchview.LaunchFunc {
	return func(ctx context.Context, cfg vllm.LaunchConfig, p launchview.Progress) (*session.Server, error) {
		how := session.Launching{Options: opts, KeepLeftovers: true, Rig: conn}
		if p.Pull != nil {
			how.Pull = func(pp docker.PullProgress) { p.Pull(pp.Bytes, pp.BytesTotal) }
		}
		return session.NewDockerLauncher(cfg, how).Launch(ctx, p.Log)
	}
}
