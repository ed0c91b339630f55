package docker

import (
	"context"
	"errors"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
)

// CleanupLeftovers removes every container carrying the launcher's labels,
// running or not: servers a crashed RigBench left behind. It returns how
// many it removed. Call it at start, before launching.
func (l *Launcher) CleanupLeftovers(ctx context.Context) (int, error) {
	list, err := l.Leftovers(ctx)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for _, s := range list {
		err := l.api.ContainerRemove(ctx, s.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing leftover container %s: %w", s.ID[:min(12, len(s.ID))], classify(err)))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Leftovers lists the containers carrying the launcher's labels.
func (l *Launcher) Leftovers(ctx context.Context) ([]container.Summary, error) {
	f := filters.NewArgs()
	for k, v := range l.labels {
		f.Add("label", k+"="+v)
	}
	list, err := l.api.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("listing RigBench containers: %w", classify(err))
	}
	return list, nil
}
