package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/go-connections/nat"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/redact"
)

// Start creates and starts a container for cfg, streams its log to obs (may
// be nil), and returns once the server answers /health and lists the model.
// If the container exits first, the error is a *StartupFailure carrying the
// recognised vLLM failure (errors.As finds the *vllm.StartupError). On every
// error and on cancellation the container is stopped and removed; on success
// the caller must call Stop.
func (l *Launcher) Start(ctx context.Context, cfg vllm.LaunchConfig, obs func(LogLine)) (*Container, error) {
	if errs := vllm.Errors(cfg.Validate()); len(errs) > 0 {
		return nil, fmt.Errorf("the launch settings need a change: %w", errs[0])
	}
	gpus := l.gpuRequest(cfg)
	if err := l.checkBusy(ctx, gpus, cfg.Port, ""); err != nil {
		return nil, err
	}
	ref := cfg.ImageRef()
	if ok, err := l.ImagePresent(ctx, ref); err != nil {
		return nil, err
	} else if !ok {
		return nil, &Error{Kind: ErrImageMissing, Message: "image " + ref + " is not on this machine",
			Hint: "pull it first (RigBench does so before starting), or check the tag"}
	}
	port := cfg.Port
	if port == 0 && l.portsHere() {
		p, err := FreePort()
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		port = p
	}
	apiKey, name := "rb-"+randomHex(16), "rigbench-"+randomHex(5)
	token := cfg.Token(l.getenv)
	ccfg, hcfg, err := l.containerSpec(cfg, port, apiKey, token)
	if err != nil {
		return nil, err
	}
	created, err := l.api.ContainerCreate(ctx, ccfg, hcfg, nil, nil, name)
	if err != nil {
		return nil, fmt.Errorf("creating the container: %w", classify(err))
	}
	c := newContainer(l, created.ID, name, port, apiKey, cfg, redact.New(append([]string{apiKey, token}, vllm.SecretValues(cfg.Extra)...)...))
	if err := l.checkBusy(ctx, gpus, cfg.Port, created.ID); err != nil {
		c.Stop(ctx)
		return nil, err
	}
	if err := l.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		c.Stop(ctx)
		return nil, fmt.Errorf("starting the container: %w", desktopGPU(runtime.GOOS, l.portsHere(), classify(err)))
	}
	if port == 0 {
		if c.port, err = l.publishedPort(ctx, created.ID); err != nil {
			c.Stop(ctx)
			return nil, err
		}
	}
	c.followLogs(obs)
	if err := c.waitReady(ctx); err != nil {
		c.Stop(ctx)
		return nil, err
	}
	return c, nil
}

// CheckFree tells whether cfg's GPUs and port are free of other RigBench
// servers, so a launch can refuse before pulling an image; Start checks
// again (twice: before and after creating its container).
func (l *Launcher) CheckFree(ctx context.Context, cfg vllm.LaunchConfig) error {
	return l.checkBusy(ctx, l.gpuRequest(cfg), cfg.Port, "")
}

// gpuRequest is the --gpus request the container really gets: none when
// the launcher leaves GPUs out.
func (l *Launcher) gpuRequest(cfg vllm.LaunchConfig) string {
	if l.noGPU {
		return ""
	}
	return cfg.GPUs
}

// containerSpec builds the Engine API equivalent of
// `docker run --gpus … --ipc=host -p 127.0.0.1:PORT:8000 -v CACHE:… -e HF_TOKEN …`.
func (l *Launcher) containerSpec(cfg vllm.LaunchConfig, port int, apiKey, token string) (*container.Config, *container.HostConfig, error) {
	cport := nat.Port(strconv.Itoa(vllm.ContainerPort) + "/tcp")
	args := append(cfg.LaunchArgs(), "--host", "0.0.0.0", "--port", strconv.Itoa(vllm.ContainerPort), "--api-key", apiKey)
	var env []string
	if token != "" {
		env = append(env, "HF_TOKEN="+token, "HUGGING_FACE_HUB_TOKEN="+token)
	}
	for _, e := range cfg.Env {
		if !strings.Contains(e, "=") {
			v := l.getenv(e)
			if v == "" {
				continue
			}
			e += "=" + v
		}
		env = append(env, e)
	}
	labels := map[string]string{LabelModel: cfg.Model}
	if port > 0 {
		labels[LabelPort] = strconv.Itoa(port)
	}
	if l.owner != "" {
		labels[LabelOwner] = l.owner
	}
	if gpus := l.gpuRequest(cfg); gpus != "" {
		labels[LabelGPUs] = gpus
	}
	for k, v := range l.labels {
		labels[k] = v
	}
	ccfg := &container.Config{
		Image: cfg.ImageRef(), Cmd: args, Env: env, Labels: labels,
		ExposedPorts: nat.PortSet{cport: struct{}{}},
	}
	hcfg := &container.HostConfig{
		IpcMode:      container.IPCModeHost,
		PortBindings: nat.PortMap{cport: {{HostIP: "127.0.0.1", HostPort: hostPort(port)}}},
	}
	if cfg.HFCache != "" {
		src, err := l.expandHome(cfg.HFCache, "the Hugging Face cache folder", "/home/you/.cache/huggingface")
		if err != nil {
			return nil, nil, err
		}
		hcfg.Binds = append(hcfg.Binds, src+":"+vllm.ContainerHFCache)
	}
	if cfg.CompileCache != "" {
		src, err := l.expandHome(cfg.CompileCache, "vLLM's compile cache folder", "/home/you/.local/share/rigbench/compile-cache")
		if err != nil {
			return nil, nil, err
		}
		// On this machine's daemon the folder is made as the user: the
		// daemon would make a missing one owned by root. A rig's daemon
		// makes it there.
		if l.dockerDial == nil {
			if err := os.MkdirAll(src, 0o755); err != nil {
				return nil, nil, fmt.Errorf("cannot create the compile cache folder %s: %w", src, err)
			}
		}
		hcfg.Binds = append(hcfg.Binds, src+":"+vllm.ContainerCompileCache)
	}
	hcfg.Binds = append(hcfg.Binds, cfg.Volumes...)
	if !l.noGPU && cfg.GPUs != "" {
		hcfg.DeviceRequests = []container.DeviceRequest{gpuRequest(cfg.GPUs)}
	}
	return ccfg, hcfg, nil
}

// gpuRequest is docker's --gpus: all (-1), a count, or chosen device ids.
func gpuRequest(gpus string) container.DeviceRequest {
	r := container.DeviceRequest{Capabilities: [][]string{{"gpu"}}}
	switch {
	case gpus == "all":
		r.Count = -1
	case strings.HasPrefix(gpus, "count="):
		r.Count, _ = strconv.Atoi(strings.TrimPrefix(gpus, "count="))
	default:
		r.DeviceIDs = strings.Split(gpus, ",")
	}
	return r
}

// expandHome turns "~/x" into an absolute path: docker binds need one, on
// the daemon's machine. That is this machine's home for a local daemon,
// the rig user's on a remote rig (WithHome); a remote rig whose home is
// not known gets a sentence rather than this machine's folder. what and
// example word the errors.
func (l *Launcher) expandHome(p, what, example string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok || p == "~" {
		home := l.home
		if home == "" && !l.portsHere() {
			return "", fmt.Errorf("%s is in your home folder on this machine, which the rig does not share: give %s as a full path on the rig, such as %s", p, what, example)
		}
		if home == "" {
			// This machine's daemon: the folder is named as this
			// platform names it. On Windows that is C:\Users\you\…, which
			// Docker Desktop mounts as the docker CLI's -v does.
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("finding your home folder for %s: %w", p, err)
			}
			return filepath.Join(h, filepath.FromSlash(rest)), nil
		}
		return path.Join(home, rest), nil
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s must be a full path, such as %s", what, example)
	}
	return p, nil
}

// portsHere reports whether the daemon's loopback is this machine's, so a
// port free here is free there (FreePort). On a remote rig (an SSH dialer,
// a tcp:// or ssh:// host) a port free here says nothing about the rig:
// Docker picks one on the rig's loopback instead (publishedPort). Docker
// Desktop's named pipe (npipe://, Windows' default) is this machine's.
func (l *Launcher) portsHere() bool {
	host := l.host
	if host == "" && l.getenv != nil {
		host = l.getenv("DOCKER_HOST")
	}
	return l.dockerDial == nil && (host == "" || strings.HasPrefix(host, "unix://") || strings.HasPrefix(host, "npipe://"))
}

// hostPort is a port binding's host side: "" lets Docker choose a free one.
func hostPort(port int) string {
	if port == 0 {
		return ""
	}
	return strconv.Itoa(port)
}

// publishedPort reads the loopback port Docker chose for the server of
// container id (a binding with no host port).
func (l *Launcher) publishedPort(ctx context.Context, id string) (int, error) {
	info, err := l.api.ContainerInspect(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("reading the port Docker chose for the server: %w", classify(err))
	}
	if info.NetworkSettings != nil {
		cport := nat.Port(strconv.Itoa(vllm.ContainerPort) + "/tcp")
		for _, b := range info.NetworkSettings.Ports[cport] {
			if p, err := strconv.Atoi(b.HostPort); err == nil && p > 0 && (b.HostIP == "127.0.0.1" || b.HostIP == "") {
				return p, nil
			}
		}
	}
	return 0, errors.New("docker published no loopback port for the server; set a port in the launch settings")
}

// FreePort asks the kernel for a free loopback port. Another process could
// take it before docker binds it; the start then fails with ErrPortInUse.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
