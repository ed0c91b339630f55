package docker

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/docker/docker/client"

	"github.com/rigbench/rigbench/engine/rig"
)

// Error is a Docker problem explained for the user: what happened and what
// to do next, with the daemon's own error kept for the details.
type Error struct {
	Kind ErrorKind
	// Message says what happened; Hint says what to do next.
	Message, Hint string
	Err           error
}

// ErrorKind classifies Docker problems the user can fix.
type ErrorKind string

// Error kinds.
const (
	ErrDaemonMissing    ErrorKind = "daemon_missing"
	ErrDaemonPermission ErrorKind = "daemon_permission"
	ErrGPUToolkit       ErrorKind = "gpu_toolkit_missing"
	ErrImageMissing     ErrorKind = "image_missing"
	ErrPull             ErrorKind = "pull_failed"
	ErrPortInUse        ErrorKind = "port_in_use"
	ErrNotReady         ErrorKind = "not_ready"
	ErrExited           ErrorKind = "exited"
	// ErrBusy: another RigBench's server holds the GPU or port.
	ErrBusy ErrorKind = "busy"
)

// ToolkitHint is the remedy for a Docker that cannot hand GPUs to
// containers, worded once: the error of a launch Docker refused
// (ErrGPUToolkit), the app's Docker check (NoGPURuntime) and the views'
// banners all carry this hint, so the commands to type never differ.
const ToolkitHint = "install the NVIDIA Container Toolkit (nvidia-container-toolkit), run `sudo nvidia-ctk runtime configure --runtime=docker` and restart Docker"

// DesktopGPUHint is ToolkitHint's counterpart for Docker Desktop on
// Windows, whose WSL 2 engine hands the GPU to containers itself (no
// Container Toolkit to install): the three things that must be in place.
const DesktopGPUHint = "turn on WSL 2 GPU support: install a current NVIDIA driver for Windows, run `wsl --update`, tick \"Use the WSL 2 based engine\" in Docker Desktop's settings, then restart Docker Desktop"

// DesktopName is what Docker Desktop calls its engine's operating system
// in the daemon's Info (OperatingSystem), on Windows and macOS alike.
const DesktopName = "Docker Desktop"

// NoGPURuntime is the *Error (ErrGPUToolkit) of a daemon that lists no
// NVIDIA runtime, found before any launch: its containers may not reach
// the GPU. version is the daemon's, "" when unknown; desktop says it is
// Docker Desktop, whose remedy is DesktopGPUHint rather than ToolkitHint.
// A CDI setup can work without the runtime, so front ends show it as a
// warning, not a refusal.
func NoGPURuntime(version string, desktop bool) *Error {
	if desktop {
		return &Error{Kind: ErrGPUToolkit, Message: DesktopName + " does not see your GPU", Hint: DesktopGPUHint}
	}
	d := "Docker"
	if version != "" {
		d += " " + version
	}
	return &Error{Kind: ErrGPUToolkit, Message: d + " has no NVIDIA runtime, so containers cannot use the GPU", Hint: ToolkitHint}
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Message
	}
	return e.Message + ": " + e.Hint
}

func (e *Error) Unwrap() error { return e.Err }

// classify maps daemon and transport errors to an *Error when it knows what
// the user should do; other errors come back unchanged.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *Error
	if errors.As(err, &de) {
		return err
	}
	var re *rig.Error
	if errors.As(err, &re) {
		// The rig's sentence (a dropped tunnel, no Docker on the rig) is
		// about that machine; "Docker is not running" would send the user
		// to this one.
		return re
	}
	msg := err.Error()
	switch {
	case errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EACCES) || strings.Contains(msg, "permission denied while trying to connect"):
		return &Error{Kind: ErrDaemonPermission, Err: err,
			Message: "your user may not use Docker",
			Hint:    permissionHint(runtime.GOOS)}
	case client.IsErrConnectionFailed(err) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT):
		return &Error{Kind: ErrDaemonMissing, Err: err,
			Message: "Docker is not running",
			Hint:    daemonMissingHint(runtime.GOOS)}
	case strings.Contains(msg, `could not select device driver "" with capabilities: [[gpu]]`):
		return &Error{Kind: ErrGPUToolkit, Err: err,
			Message: "Docker cannot give containers a GPU",
			Hint:    ToolkitHint}
	case strings.Contains(msg, "port is already allocated") || strings.Contains(msg, "address already in use"):
		return &Error{Kind: ErrPortInUse, Err: err,
			Message: "the chosen port is already in use",
			Hint:    "pick another port, or leave it empty so RigBench finds a free one"}
	}
	return err
}

// daemonMissingHint is what to do when this machine's Docker does not
// answer, by platform: Windows and macOS run Docker Desktop (on Windows its
// engine listens on the named pipe npipe:////./pipe/docker_engine, the
// Docker client's default there, unless DOCKER_HOST says otherwise).
func daemonMissingHint(goos string) string {
	switch goos {
	case "windows":
		return "start Docker Desktop (with the WSL 2 based engine), or install it from docker.com; to use another machine's Docker, pick a rig"
	case "darwin":
		return "start Docker Desktop, or drive a Linux rig with an NVIDIA card over SSH (--rig ssh://user@host)"
	}
	return "start it with `sudo systemctl start docker` (or start Docker Desktop), or install Docker Engine"
}

// permissionHint is what to do when this user may not open the daemon's
// socket or pipe: Docker Desktop on Windows admits the docker-users group.
func permissionHint(goos string) string {
	if goos == "windows" {
		return "add your Windows user to the docker-users group (Computer Management > Local Users and Groups), then sign out and back in"
	}
	return "add it to the docker group with `sudo usermod -aG docker $USER`, then log out and back in"
}

// desktopGPU words a launch Docker refused a GPU for (ErrGPUToolkit) as
// Docker Desktop's problem when the daemon is this machine's on Windows
// (local), which is Docker Desktop there: its remedy is WSL 2's, not the
// Linux Container Toolkit's. goos is a parameter so the rule is tested on
// every platform. Any other error comes back unchanged.
func desktopGPU(goos string, local bool, err error) error {
	var de *Error
	if goos != "windows" || !local || !errors.As(err, &de) || de.Kind != ErrGPUToolkit {
		return err
	}
	d := NoGPURuntime("", true)
	d.Err = de.Err
	return d
}
