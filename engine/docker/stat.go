package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
)

// HasPath reports whether path exists in the container's file system, its
// bind mounts included (the Hugging Face cache a cluster's node mounts),
// through the Docker API's archive stat (`docker cp`'s): it needs no shell
// in the image (the simulator's is FROM scratch) and reaches a rig's
// container over the rig's one connection.
func (c *Container) HasPath(ctx context.Context, path string) (bool, error) {
	return c.l.hasPath(ctx, c.id, c.name, path)
}

// hasPath is HasPath of the container id, named name in the error.
func (l *Launcher) hasPath(ctx context.Context, id, name, path string) (bool, error) {
	_, err := l.api.ContainerStatPath(ctx, id, path)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking for %s in %s: %w", path, name, classify(err))
	}
	return true, nil
}

// HasPathIn reports whether path exists in a container of image with binds
// (`-v SRC:DST`, "~" the rig user's home) mounted, without running
// anything: the container is created, never started, looked into through
// the archive stat (the daemon mounts a created container's binds for
// it, as `docker cp` from a stopped container reads them), and removed on
// every path. It is how a cluster's rigs are asked, before any node
// starts, whether their Hugging Face cache holds the model: through each
// rig's own Docker connection, with the folder exactly as the node would
// mount it. The container carries the launcher's labels, so a crash
// between create and remove leaves a leftover the next clean-up removes.
// Like the node's own start, Docker creates a missing source folder.
func (l *Launcher) HasPathIn(ctx context.Context, image string, binds []string, path string) (bool, error) {
	hostBinds, err := l.hostBinds(binds)
	if err != nil {
		return false, err
	}
	// The entrypoint is never run; an image FROM scratch (the simulator)
	// has none of its own, and the daemon refuses a container without one.
	ccfg := &container.Config{Image: image, Entrypoint: []string{"true"}, Labels: l.probeLabels()}
	created, err := l.api.ContainerCreate(ctx, ccfg, &container.HostConfig{Binds: hostBinds}, nil, nil, "rigbench-probe-"+randomHex(5))
	if err != nil {
		return false, fmt.Errorf("creating a container of %s to look for %s: %w", image, path, classify(err))
	}
	defer l.removeProbe(ctx, created.ID)
	return l.hasPath(ctx, created.ID, "a container of "+image, path)
}
