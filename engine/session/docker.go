package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// DockerLauncher launches vLLM (or any image that speaks its command line,
// such as RigBench's simulator image) through the local Docker daemon. Its
// Launch is the one launch sequence of the product: the session's launch
// target, the app's Launch view and `rigbench-cli launch` all call it, each
// with its own observers (log pane and progress bar, or stderr).
type DockerLauncher struct {
	// Config is the launch configuration the user edited.
	Config vllm.LaunchConfig
	// Options for engine/docker (tests turn the GPU request off).
	Options []docker.Option
	// KeepLeftovers skips removing the containers an earlier, crashed
	// RigBench left behind. The app removes them once at start-up (a
	// second removal at launch could take a server another front end
	// runs); a kept CLI server is launched without removing its
	// predecessors for the same reason.
	KeepLeftovers bool
	// Pull receives image pull progress (nil: none).
	Pull func(docker.PullProgress)
	// Rig is where the server runs (nil: the local daemon). On a remote
	// rig the Docker API, the readiness checks and the benchmark's
	// requests all go through its one SSH connection, and the port is
	// published on the rig's 127.0.0.1 only. The caller closes it.
	Rig *rig.Conn
}

var _ Launcher = (*DockerLauncher)(nil)

// Launch removes leftovers (unless KeepLeftovers), pulls the image when it
// is missing, starts the container streaming its log to log, waits until it
// serves the model, and returns how to reach it with the facts its
// start-up log reported. On every error and on cancellation engine/docker
// stops and removes the container; on success the Server's Stop does.
func (d *DockerLauncher) Launch(ctx context.Context, log func(string)) (*Server, error) {
	if log == nil {
		log = func(string) {}
	}
	if d.Rig.Remote() && d.Config.CompileCache == RigCompileCache {
		// The default folder is in the rig user's home; a rig that does not
		// say its home gets none rather than a refused launch: the cache
		// only saves time. A "~" path the user typed is still refused in
		// docker's sentence.
		if _, err := d.Rig.Home(ctx); err != nil {
			log("no compile cache on the rig (" + err.Error() + "): name a full path there to keep one")
			d.Config.CompileCache = ""
		}
	}
	l, err := docker.New(ctx, append(RigOptions(ctx, d.Rig), d.Options...)...)
	if err != nil {
		return nil, err
	}
	if !d.KeepLeftovers {
		if n, err := l.CleanupLeftovers(ctx); err != nil {
			log("warning: " + err.Error())
		} else if n > 0 {
			log(fmt.Sprintf("removed %d container(s) left by an earlier RigBench run", n))
		}
	}
	if err := l.CheckFree(ctx, d.Config); err != nil {
		l.Close()
		return nil, err
	}
	pull := d.Pull
	if pull == nil {
		pull = func(docker.PullProgress) {}
	}
	log("Checking image " + d.Config.ImageRef() + "…")
	if err := l.EnsureImage(ctx, d.Config.ImageRef(), pull); err != nil {
		l.Close()
		return nil, err
	}
	// The command as the user could type it, with the token redacted.
	log("$ " + d.Config.DockerCommand(true))
	t0 := time.Now()
	c, err := l.Start(ctx, d.Config, func(line docker.LogLine) { log(line.Text) })
	if err != nil {
		l.Close()
		return nil, err
	}
	facts := c.Facts()
	rec := d.Config.Record()
	rec.Startup = &rundoc.Startup{LoadS: time.Since(t0).Seconds(), WeightsS: facts.WeightsS, CompileS: facts.CompileS,
		GraphCaptureS: facts.GraphCaptureS, CompileCacheHit: facts.CompileCacheHit}
	return &Server{
		Endpoint:    c.Endpoint(),
		APIKey:      c.APIKey(),
		Model:       d.Config.ServedModelName(),
		Version:     facts.Version,
		KVCapacity:  facts.KVCacheTokens,
		KVCacheGiB:  facts.KVCacheGiB,
		WeightsGiB:  facts.WeightsGiB,
		MaxModelLen: MaxModelLen(d.Config),
		Record:      &rec,
		Rig:         RigRecord(d.Rig),
		Simulated:   strings.Contains(d.Config.Image, "rigbench-sim"),
		Container:   c.Name(),
		Exited:      c.Exited(),
		ExitReport:  func() string { return c.ExitReport(ctx) },
		Dial:        d.Rig.Dial(),
		LinkLost:    linkLost(d.Rig, c.Name()),
		Exec:        c.Exec,
		Stop: func(ctx context.Context) error {
			if lost := d.Rig.LostError(); lost != nil {
				// Stopping would fail twice with the same sentence (stop,
				// remove); say once what became of the server.
				l.Close()
				return fmt.Errorf("%s is left running on the rig (a launch there after this RigBench exits removes it): %w", c.Name(), lost)
			}
			return errors.Join(c.Stop(ctx), l.Close())
		},
	}, nil
}

// MaxModelLen is --max-model-len of a launch configuration, 0 when vLLM
// picks it (a run then reads the served value from /v1/models).
func MaxModelLen(cfg vllm.LaunchConfig) int {
	v, ok := cfg.Get("--max-model-len")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0
	}
	return n
}
