package docker

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// OneShotTimeout bounds a short-lived command container (nvidia-smi takes
// well under a second; a first CUDA init a few).
const OneShotTimeout = 60 * time.Second

// RunOnce runs cmd (cmd[0] as the entrypoint) in a short-lived container of
// image, an image already on the daemon, with every GPU attached unless
// the launcher leaves GPUs out, and returns its standard output. It is how
// a rig is read without installing anything on it: the vLLM image (or the
// simulator's) already holds what the NVIDIA Container Toolkit mounts, so
// `nvidia-smi` runs there. The container carries the launcher's labels and
// is removed on every path; a non-zero exit is an error holding its
// standard error.
func (l *Launcher) RunOnce(ctx context.Context, image string, cmd []string) (string, error) {
	if len(cmd) == 0 {
		return "", fmt.Errorf("no command to run in %s", image)
	}
	ctx, cancel := context.WithTimeout(ctx, OneShotTimeout)
	defer cancel()
	ccfg := &container.Config{Image: image, Entrypoint: cmd[:1], Cmd: cmd[1:], Labels: l.probeLabels(), Env: l.oneShotEnv}
	hcfg := &container.HostConfig{}
	if !l.noGPU {
		hcfg.DeviceRequests = []container.DeviceRequest{gpuRequest("all")}
	}
	created, err := l.api.ContainerCreate(ctx, ccfg, hcfg, nil, nil, "rigbench-probe-"+randomHex(5))
	if err != nil {
		return "", fmt.Errorf("creating a container of %s to run %s: %w", image, cmd[0], classify(err))
	}
	defer l.removeProbe(ctx, created.ID)
	if err := l.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return "", fmt.Errorf("running %s in %s: %w", cmd[0], image, classify(err))
	}
	// The daemon keeps the log from the start, so following it after the
	// start misses nothing; Follow ends when the command exits.
	rc, err := l.api.ContainerLogs(ctx, created.ID, container.LogsOptions{ShowStdout: true, ShowStderr: true, Follow: true})
	if err != nil {
		return "", fmt.Errorf("reading the output of %s: %w", cmd[0], classify(err))
	}
	var out, errb bytes.Buffer
	_, err = stdcopy.StdCopy(&out, &errb, rc)
	rc.Close()
	if err != nil {
		return "", fmt.Errorf("reading the output of %s: %w", cmd[0], err)
	}
	code := -1
	for {
		info, err := l.api.ContainerInspect(ctx, created.ID)
		if err != nil {
			return "", fmt.Errorf("reading the exit code of %s: %w", cmd[0], classify(err))
		}
		if info.State != nil && !info.State.Running {
			code = info.State.ExitCode
			break
		}
		select { // the log can end a moment before the state changes
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(l.poll):
		}
	}
	if code != 0 {
		msg := strings.TrimSpace(errb.String() + " " + out.String())
		return "", fmt.Errorf("%s in %s exited with code %d: %s", cmd[0], image, code, firstLine(msg))
	}
	return out.String(), nil
}

// probeLabels are the labels of a short-lived container (RunOnce's,
// HasPathIn's): the launcher's and its owner, so the leftovers clean-up
// finds one that a crash kept.
func (l *Launcher) probeLabels() map[string]string {
	labels := maps.Clone(l.labels)
	if labels == nil {
		labels = map[string]string{}
	}
	if l.owner != "" {
		labels[LabelOwner] = l.owner
	}
	return labels
}

// removeProbe removes a short-lived container, also when ctx has ended.
func (l *Launcher) removeProbe(ctx context.Context, id string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_ = l.api.ContainerRemove(rctx, id, container.RemoveOptions{Force: true})
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
