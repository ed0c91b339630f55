package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
)

// HasPath reports whether path exists in the container's file system, its
// bind mounts included (the Hugging Face cache a cluster's node mounts),
// through the Docker API's archive stat (`docker cp`'s): it needs no shell
// in the image (the simulator's is FROM scratch) and reaches a rig's
// container over the rig's one connection.
func (c *Container) HasPath(ctx context.Context, path string) (bool, error) {
	_, err := c.l.api.ContainerStatPath(ctx, c.id, path)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking for %s in %s: %w", path, c.name, classify(err))
	}
	return true, nil
}
