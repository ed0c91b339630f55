package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/vllm"
)

// DockerLauncher launches vLLM (or any image that speaks its command line,
// such as RigBench's simulator image) through the local Docker daemon.
type DockerLauncher struct {
	// Config is the launch configuration the user edited.
	Config vllm.LaunchConfig
	// Options for engine/docker (tests turn the GPU request off).
	Options []docker.Option
	// Pull receives image pull progress (nil: none).
	Pull func(docker.PullProgress)
	// OnStart is told about the container once it is ready (the UI shows
	// the endpoint; nil: nothing).
	OnStart func(*docker.Container)
}

var _ Launcher = (*DockerLauncher)(nil)

// Launch pulls the image when missing, starts the container, waits until it
// serves the model, and returns how to reach it. Leftover containers from an
// earlier crash are removed first.
func (d *DockerLauncher) Launch(ctx context.Context, log func(string)) (*Server, error) {
	l, err := docker.New(ctx, d.Options...)
	if err != nil {
		return nil, err
	}
	if n, err := l.CleanupLeftovers(ctx); err == nil && n > 0 {
		log(fmt.Sprintf("removed %d leftover RigBench container(s) from an earlier run", n))
	}
	pull := d.Pull
	if pull == nil {
		pull = func(docker.PullProgress) {}
	}
	if err := l.EnsureImage(ctx, d.Config.ImageRef(), pull); err != nil {
		l.Close()
		return nil, err
	}
	log("$ " + d.Config.DockerCommand(true))
	c, err := l.Start(ctx, d.Config, func(line docker.LogLine) { log(line.Text) })
	if err != nil {
		l.Close()
		return nil, err
	}
	if d.OnStart != nil {
		d.OnStart(c)
	}
	facts := c.Facts()
	rec := d.Config.Record()
	return &Server{
		Endpoint:          c.Endpoint(),
		APIKey:            c.APIKey(),
		KVCapacityFromLog: facts.KVCacheTokens,
		Record:            &rec,
		Simulated:         strings.Contains(d.Config.Image, "rigbench-sim"),
		Stop: func(ctx context.Context) error {
			return errors.Join(c.Stop(ctx), l.Close())
		},
	}, nil
}
