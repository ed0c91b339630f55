package docker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/redact"
)

// LabelCluster names the cluster a node container belongs to
// (engine/cluster), so every rig's share of one cluster is found again.
const LabelCluster = "io.rigbench.cluster"

// NodeSpec is one node container of a cluster launch: `docker run -d
// --network host --ipc=host --gpus … --entrypoint CMD[0] IMAGE CMD[1:]…`.
// Host networking is what vLLM's multi-node recipe asks: Ray, NCCL and
// Gloo open ports of their own choosing between the nodes.
type NodeSpec struct {
	// Name is the container's name.
	Name string
	// Image is the image reference.
	Image string
	// Cmd is the command, Cmd[0] as the entrypoint (`ray start …`).
	Cmd []string
	// Env are NAME=value pairs; Secret ones (a token) are shown by name only.
	Env []string
	// Secrets are values Env holds that no log or shown line may carry.
	Secrets []string
	// Binds are `-v` mounts, sources already absolute on the rig ("~"
	// expands to the rig's home as a single launch's do).
	Binds []string
	// GPUs is the --gpus request ("all", "count=N", device ids; "" none).
	GPUs string
	// Labels are added to the launcher's own (managed, owner, instance).
	Labels map[string]string
}

// DockerCommand is the `docker run` line of s as a person would type it,
// secrets shown by name only (docker copies them from the caller's
// environment).
func (s NodeSpec) DockerCommand() string {
	a := append([]string{"docker", "run", "-d", "--name", s.Name, "--network", "host", "--ipc=host"}, vllm.GPUsArgs(s.GPUs)...)
	for _, b := range s.Binds {
		a = append(a, "-v", b)
	}
	r := redact.New(s.Secrets...)
	for _, e := range s.Env {
		name, val, _ := strings.Cut(e, "=")
		if r.String(val) != val || vllm.SecretEnvName(name) {
			e = name
		}
		a = append(a, "-e", e)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		a = append(a, "--label", k+"="+s.Labels[k])
	}
	if len(s.Cmd) > 0 {
		a = append(a, "--entrypoint", s.Cmd[0], s.Image)
		a = append(a, s.Cmd[1:]...)
	}
	return vllm.JoinArgs(a)
}

// hostBinds are `-v SRC:DST` mounts with each source made a full path on
// the daemon's machine ("~" is the rig user's home, as a single launch's
// cache folder).
func (l *Launcher) hostBinds(binds []string) ([]string, error) {
	var out []string
	for _, b := range binds {
		src, dst, ok := strings.Cut(b, ":")
		if ok {
			abs, err := l.expandHome(src, "the folder "+src, "/home/you/.cache/huggingface")
			if err != nil {
				return nil, err
			}
			b = abs + ":" + dst
		}
		out = append(out, b)
	}
	return out, nil
}

// StartNode creates and starts s's container with the launcher's labels
// (managed, owner, instance: a crashed RigBench's nodes are leftovers
// like its servers) and follows its log to obs. It returns as soon as the
// container runs; the caller decides when the node has joined. On error
// the container is removed.
func (l *Launcher) StartNode(ctx context.Context, s NodeSpec, obs func(LogLine)) (*Container, error) {
	if len(s.Cmd) == 0 {
		return nil, fmt.Errorf("node %s has no command", s.Name)
	}
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	if l.owner != "" {
		labels[LabelOwner] = l.owner
	}
	if gpus := l.gpuRequest(vllm.LaunchConfig{GPUs: s.GPUs}); gpus != "" {
		labels[LabelGPUs] = gpus
	}
	maps.Copy(labels, l.labels)
	var env []string
	for _, e := range s.Env {
		if !strings.Contains(e, "=") { // a bare name: copied from RigBench's environment, as docker -e NAME does
			v := l.getenv(e)
			if v == "" {
				continue
			}
			e += "=" + v
		}
		env = append(env, e)
	}
	ccfg := &container.Config{Image: s.Image, Entrypoint: s.Cmd[:1], Cmd: s.Cmd[1:], Env: env, Labels: labels}
	// AutoRemove: a node whose Ray exits (a worker that lost its head,
	// which Ray's own worker does after its reconnect timeout) is removed
	// by its daemon, so a rig whose link dropped keeps nothing of the
	// cluster once the head is stopped.
	hcfg := &container.HostConfig{NetworkMode: "host", IpcMode: container.IPCModeHost, AutoRemove: true}
	binds, err := l.hostBinds(s.Binds)
	if err != nil {
		return nil, err
	}
	hcfg.Binds = binds
	if !l.noGPU && s.GPUs != "" {
		hcfg.DeviceRequests = []container.DeviceRequest{gpuRequest(s.GPUs)}
	}
	created, err := l.api.ContainerCreate(ctx, ccfg, hcfg, nil, nil, s.Name)
	if err != nil {
		return nil, fmt.Errorf("creating the node container %s: %w", s.Name, classify(err))
	}
	c := newContainer(l, created.ID, s.Name, 0, "", vllm.LaunchConfig{Image: s.Image}, redact.New(s.Secrets...))
	c.autoRemove = true
	if err := l.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		c.Stop(ctx)
		return nil, fmt.Errorf("starting the node container %s: %w", s.Name, classify(err))
	}
	c.followLogs(obs)
	return c, nil
}
