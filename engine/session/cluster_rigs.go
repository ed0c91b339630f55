package session

import (
	"context"
	"fmt"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/vllm"
)

// ReadRigs connects to each rig of the cluster and reads its GPUs, as the
// launch does, without starting anything: a tune sweep checks every
// variant's split against them (cluster.CheckSplit) before its first
// variant launches. A rig whose GPUs cannot be read yet (the launch's image
// is not there to read them with) has GPUs 0, and its launch checks it.
func (c ClusterInput) ReadRigs(ctx context.Context, cfg vllm.LaunchConfig, how Launching) ([]cluster.Rig, error) {
	l, err := c.launcher(cfg, how)
	if err != nil {
		return nil, err
	}
	conns, closeConns, err := l.connect(ctx, func(string) {})
	if err != nil {
		return nil, err
	}
	defer closeConns()
	rigs := make([]cluster.Rig, len(conns))
	for i, conn := range conns {
		name := RigRecord(conn).Name
		snap, err := RigHardware(ctx, conn, []string{cfg.ImageRef()}, l.Options...)
		if err != nil {
			return nil, fmt.Errorf("rig %s: %w", name, err)
		}
		rigs[i] = cluster.Rig{Name: name, GPUs: len(snap.GPUs)}
	}
	return rigs, nil
}
