package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// RigOptions are the engine/docker options that reach conn's daemon and
// served port: none for the local daemon, the Docker host of a context, or
// both dialers of an SSH rig's one connection.
//
// An SSH rig's home folder is asked once here, so "~" in a mount names the
// rig user's folder; when the rig does not say, such a mount is refused at
// the launch in a sentence (docker.WithHome).
func RigOptions(ctx context.Context, conn *rig.Conn) []docker.Option {
	if conn == nil {
		return nil
	}
	if conn.Remote() {
		opts := []docker.Option{docker.WithDialer(conn.DockerHost(), conn.DialDocker(), conn.Dial())}
		if home, err := conn.Home(ctx); err == nil {
			opts = append(opts, docker.WithHome(home))
		}
		return opts
	}
	if h := conn.DockerHost(); h != "" {
		return []docker.Option{docker.WithHost(h)}
	}
	return nil
}

// RigRecord is how a run records the rig conn reaches (nil: the local
// daemon): its kind and its name without the user name (rig.Spec.Public).
func RigRecord(conn *rig.Conn) *rundoc.Rig {
	s := rig.Spec{Kind: rig.Local, Name: rig.LocalName}
	if conn != nil {
		s = conn.Spec()
	}
	return &rundoc.Rig{Kind: string(s.Kind), Name: s.Public()}
}

// linkLostWait is how long a run whose server seems gone waits for a
// dropped tunnel to be reported: the container's log stream and the SSH
// connection end together, in either order.
const linkLostWait = 2 * time.Second

// linkLost is the runner's LinkLost for a server behind conn: the
// sentence of a dropped SSH connection, nil while it is up (or for a rig
// reached without SSH).
func linkLost(conn *rig.Conn) func() error {
	if !conn.Remote() {
		return nil
	}
	return func() error {
		t := time.NewTimer(linkLostWait)
		defer t.Stop()
		select {
		case <-conn.Lost():
			return conn.LostError()
		case <-t.C:
			return nil
		}
	}
}

// RigHardware reads a rig's hardware through its Docker, installing
// nothing there: GPUs from `nvidia-smi --query-gpu=…` in a short-lived
// container of the first of images already on the rig (the vLLM image,
// or the simulator's with its stand-in nvidia-smi), CPU, memory and OS
// from the daemon's own report. What cannot be read is said in
// GPUAbsentReason; an unreachable daemon is the error. opts go to
// engine/docker after the rig's own (tests: WithoutGPU for the simulator
// image on a machine without the NVIDIA runtime).
func RigHardware(ctx context.Context, conn *rig.Conn, images []string, opts ...docker.Option) (hardware.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, docker.OneShotTimeout)
	defer cancel()
	l, err := docker.New(ctx, append(RigOptions(ctx, conn), opts...)...)
	if err != nil {
		return hardware.Snapshot{}, err
	}
	defer l.Close()
	snap := hardware.Snapshot{GPUs: []hardware.GPU{}}
	if in, ok := l.API().(infoer); ok {
		if info, err := in.Info(ctx); err == nil {
			snap.CPU = hardware.CPU{LogicalCores: info.NCPU}
			snap.Memory = hardware.Memory{TotalBytes: uint64(max(info.MemTotal, 0))}
			snap.OS = hardware.OS{Name: info.OperatingSystem, Kernel: info.KernelVersion, Arch: info.Architecture}
			if !strings.Contains(info.OperatingSystem, info.OSVersion) {
				snap.OS.Version = info.OSVersion // "Debian GNU/Linux 12 (bookworm)" already says 12
			}
		}
	}
	image := ""
	for _, im := range images {
		if ok, err := l.ImagePresent(ctx, im); err == nil && ok {
			image = im
			break
		}
	}
	if image == "" {
		snap.GPUAbsentReason = fmt.Sprintf("no image to read the GPUs with is on the rig (%s): launch once, which pulls the vLLM image, or name one with --image",
			strings.Join(images, ", "))
		return snap, nil
	}
	out, err := l.RunOnce(ctx, image, hardware.NvidiaSMIArgs())
	if err != nil {
		snap.GPUAbsentReason = "reading the GPUs with nvidia-smi failed: " + err.Error() +
			" (the rig needs the NVIDIA driver and the NVIDIA Container Toolkit)"
		return snap, nil
	}
	gpus, driver, err := hardware.ParseNvidiaSMI(out)
	if err != nil {
		snap.GPUAbsentReason = err.Error()
		return snap, nil
	}
	snap.GPUs, snap.DriverVersion = gpus, driver
	return snap, nil
}
