package docker

import (
	"context"
	"fmt"
	"strconv"

	"github.com/docker/docker/api/types/container"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/redact"
)

// ServeCommand is the command a cluster runs in its head's container:
// `vllm serve` with cfg's arguments, listening on the head rig's loopback
// at port (the node runs in the host's network) and requiring apiKey.
func ServeCommand(cfg vllm.LaunchConfig, port int, apiKey string) []string {
	return append(append([]string{"vllm", "serve"}, cfg.LaunchArgs()...),
		"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--api-key", apiKey)
}

// StartServe runs `vllm serve` for cfg in node's container (the Ray
// head's), as vLLM's multi-node recipe does by `docker exec`, streams its
// output to obs, and returns once it serves the model on port, as Start
// does for a single server. The returned Container is that server: its
// Exited closes when the serve process ends, its Stop stops the head's
// container. On error the serve process ends with the head's container
// (the caller stops the cluster).
func (l *Launcher) StartServe(ctx context.Context, node *Container, cfg vllm.LaunchConfig, port int, obs func(LogLine)) (*Container, error) {
	apiKey := "rb-" + randomHex(16)
	token := cfg.Token(l.getenv)
	c := newContainer(l, node.id, node.name, port, apiKey, cfg, redact.New(append([]string{apiKey, token}, vllm.SecretValues(cfg.Extra)...)...))
	cmd := ServeCommand(cfg, port, apiKey)
	ex, err := l.api.ContainerExecCreate(ctx, node.id, container.ExecOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return nil, fmt.Errorf("starting vllm serve in %s: %w", node.name, classify(err))
	}
	att, err := l.api.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, fmt.Errorf("starting vllm serve in %s: %w", node.name, classify(err))
	}
	c.execID, c.following = ex.ID, true
	c.logCancel = func() { att.Close() }
	go func() {
		defer close(c.logsDone)
		copyLines(att.Reader, c.emitter(obs)) // ends when vllm serve exits or the head's container stops
	}()
	if err := c.waitReady(ctx); err != nil {
		att.Close()
		return nil, err
	}
	return c, nil
}
