package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
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
//
// container names the server's container on the rig: the run's sentence
// says it is still running there, since nothing could stop it (issue 36
// item 10), and how it goes away.
func linkLost(conn *rig.Conn, container string) func() error {
	if !conn.Remote() {
		return nil
	}
	return func() error {
		t := time.NewTimer(linkLostWait)
		defer t.Stop()
		select {
		case <-conn.Lost():
			lost := conn.LostError()
			if lost == nil || container == "" {
				return lost
			}
			return fmt.Errorf("%w; the server's container %s is still running on the rig, and RigBench's next launch there removes it", lost, container)
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
		// Worded for either front end: the image is the CLI's --image and
		// the app's Launch page image.
		snap.GPUAbsentReason = fmt.Sprintf("no image to read the GPUs with is on the rig (%s): launch there once, which pulls it, or name an image the rig already has",
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
	if len(gpus) > 1 {
		snap.Topology = rigTopology(ctx, l, image)
	}
	return snap, nil
}

// rigTopology reads how a rig's GPUs are linked with `nvidia-smi topo -m`
// and whether they reach each other peer to peer with `nvidia-smi topo
// -p2p r`, each in a short-lived container of image. What cannot be read
// is left out: the links are a detail of the snapshot, never a reason to
// refuse a rig.
func rigTopology(ctx context.Context, l *docker.Launcher, image string) []hardware.GPULink {
	topo, err := l.RunOnce(ctx, image, hardware.NvidiaSMITopoArgs())
	if err != nil {
		return nil
	}
	p2p, err := l.RunOnce(ctx, image, hardware.NvidiaSMIP2PArgs())
	if err != nil {
		p2p = ""
	}
	links, err := hardware.ParseNvidiaSMITopo(topo, p2p)
	if err != nil {
		return nil
	}
	return links
}

// startRigTelemetry starts a sampler of a remote rig's GPUs: each tick
// runs `nvidia-smi --query-gpu=… --format=csv,noheader,nounits`
// (hardware.NvidiaSMITelemetryArgs) in the serving container through the
// rig's Docker, over its one SSH connection, and reads the same samples
// the NVML sampler gives locally. The card's energy counter
// (energy.consumed) is asked for while nvidia-smi answers it; one that
// refuses the field (older drivers exit with code 2) is asked without it
// from then on, and the cells' energy then comes from the power samples
// (hardware.GPUStats.EnergySource says which). Once the connection has
// dropped a tick reads nothing at once, so a lost rig never holds up the
// run's end. It fails, with the reason, when the first reading does. conn
// is nil for a reused server (the app's Launch page's), whose drop its
// exec then reports.
func startRigTelemetry(ctx context.Context, conn *rig.Conn, exec func(context.Context, []string) (string, error), log func(string)) (*probe.Sampler, error) {
	if exec == nil {
		return nil, errors.New("the server runs in no container RigBench can read the GPUs in")
	}
	read, energy := rigReadings(ctx, conn, exec)
	return startReadings(ctx, read, energy, "the server's container on the rig", log)
}

// rigReadings reads one rig's GPUs with nvidia-smi through exec (a
// container on the rig), reading nothing at once after conn dropped; energy
// says whether its nvidia-smi answers the energy counter.
func rigReadings(ctx context.Context, conn *rig.Conn, exec func(context.Context, []string) (string, error)) (read func() ([]hardware.GPUSample, error), energy func() bool) {
	smi, energy := hardware.NvidiaSMIReadings(func(args []string) (string, int, error) {
		out, err := exec(ctx, args)
		var ee *docker.ExecError
		if errors.As(err, &ee) {
			return out, ee.Code, err
		}
		return out, -1, err
	})
	read = func() ([]hardware.GPUSample, error) {
		select {
		case <-conn.Lost():
			return nil, conn.LostError()
		default:
		}
		return smi()
	}
	return read, energy
}

// startReadings starts a sampler on read and says where its readings come
// from (where: "the server's container on the rig") and its energy's source.
func startReadings(ctx context.Context, read func() ([]hardware.GPUSample, error), energy func() bool, where string, log func(string)) (*probe.Sampler, error) {
	s := probe.NewSampler(probe.WithReadings(read))
	if err := s.Start(ctx); err != nil {
		return nil, fmt.Errorf("reading the GPUs with nvidia-smi in %s failed: %w", where, err)
	}
	if energy() {
		log("GPU telemetry: nvidia-smi in " + where + ", energy from the cards' counters where they have one")
	} else {
		log("GPU telemetry: nvidia-smi in " + where + "; its nvidia-smi has no energy counter, so energy comes from the power samples")
	}
	return s, nil
}
