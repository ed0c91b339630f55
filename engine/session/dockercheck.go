package session

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/docker/docker/api/types/system"

	"github.com/rigbench/rigbench/engine/docker"
)

// DockerCheckTimeout bounds the Docker check: a daemon that does not answer
// in this time is reported as not running rather than holding up a front
// end.
const DockerCheckTimeout = 8 * time.Second

// DockerStatus is what the local Docker daemon says about launching vLLM.
// It holds facts and causes; each front end words them.
type DockerStatus struct {
	// Err is why the daemon cannot be used (a *docker.Error when
	// engine/docker recognised the cause), nil when it can.
	Err error
	// Version is the daemon's version.
	Version string
	// RuntimesErr is why the daemon did not say which runtimes it has
	// (then NVIDIARuntime is unknown).
	RuntimesErr error
	// NVIDIARuntime is true when the daemon can hand GPUs to containers
	// (an "nvidia" runtime, registered by the NVIDIA Container Toolkit).
	NVIDIARuntime bool
	// Desktop is true when the daemon is Docker Desktop's engine, whose
	// remedy for a missing GPU is WSL 2's (docker.NoGPURuntime).
	Desktop bool
}

// Problem is the *docker.Error a front end shows for a daemon that
// answered but cannot hand GPUs to containers, nil when it can or when it
// did not say (RuntimesErr).
func (s DockerStatus) Problem() *docker.Error {
	if s.Err != nil || s.RuntimesErr != nil || s.NVIDIARuntime {
		return nil
	}
	return docker.NoGPURuntime(s.Version, s.Desktop)
}

// Available reports whether the daemon answered.
func (s DockerStatus) Available() bool { return s.Err == nil }

// infoer is the part of the Docker client that reports the daemon's
// runtimes; engine/docker's API leaves it out, the real client has it.
type infoer interface {
	Info(ctx context.Context) (system.Info, error)
}

// ErrNoRuntimeInfo is RuntimesErr for a Docker client that cannot be asked
// about the daemon's runtimes.
var ErrNoRuntimeInfo = errors.New("the Docker client cannot ask the daemon about its runtimes")

// CheckDocker asks the daemon whether it runs and whether it can hand GPUs
// to containers. With cleanup it also removes the containers a crashed
// RigBench left behind (the app does so once, at start-up).
func CheckDocker(ctx context.Context, cleanup bool, opts ...docker.Option) DockerStatus {
	ctx, cancel := context.WithTimeout(ctx, DockerCheckTimeout)
	defer cancel()
	l, err := docker.New(ctx, opts...)
	if err != nil {
		return DockerStatus{Err: err}
	}
	defer l.Close()
	if cleanup {
		// A failure here only leaves a stopped container behind; the
		// next start tries again, so it is not worth a warning.
		_, _ = l.CleanupLeftovers(ctx)
	}
	in, ok := l.API().(infoer)
	if !ok {
		return DockerStatus{RuntimesErr: ErrNoRuntimeInfo}
	}
	info, err := in.Info(ctx)
	if err != nil {
		return DockerStatus{RuntimesErr: err}
	}
	return statusOf(info)
}

// statusOf reads the daemon's Info: its version, whether it lists the
// NVIDIA runtime, and whether it is Docker Desktop.
func statusOf(info system.Info) DockerStatus {
	return DockerStatus{Version: info.ServerVersion, NVIDIARuntime: hasNVIDIARuntime(info),
		Desktop: info.OperatingSystem == docker.DesktopName}
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
