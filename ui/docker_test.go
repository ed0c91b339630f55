package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
)

// A daemon that is not there is reported as not running, with what to do.
func TestCheckDockerMissingDaemon(t *testing.T) {
	d := checkDocker(context.Background(), false, docker.WithHost("unix://"+t.TempDir()+"/no-docker.sock"))
	if !d.Checked || d.Available {
		t.Fatalf("check of a missing daemon = %+v, want checked and unavailable", d)
	}
	if !strings.Contains(d.Problem, "Docker is not running") || !strings.Contains(d.Problem, "systemctl start docker") || !strings.Contains(d.Problem, "demo") {
		t.Errorf("problem %q lacks the cause, the fix or the fallback", d.Problem)
	}
}

// dockerOrSkip returns launcher options for the real daemon, labelled for
// this test alone so no clean-up elsewhere touches its containers, or
// skips where no daemon answers (CI=true requires one).
func dockerOrSkip(t *testing.T) []docker.Option {
	t.Helper()
	opts := []docker.Option{docker.WithoutGPU(), dockertest.UniqueLabel(),
		docker.WithReadyTimeout(2 * time.Minute), docker.WithPollInterval(100 * time.Millisecond)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t, opts...)
	// Cleanups run last first: this one, before the launcher closes.
	t.Cleanup(func() {
		if left, _ := l.Managed(context.Background()); len(left) > 0 {
			t.Errorf("%d containers of this test remain", len(left))
			l.RemoveAll(context.Background())
		}
	})
	return opts
}

// The real daemon: running, its version, and a runtime verdict that agrees
// with the advice.
func TestCheckDockerRealDaemon(t *testing.T) {
	opts := dockerOrSkip(t)
	d := checkDocker(context.Background(), true, opts...)
	if !d.Checked || !d.Available || d.Version == "" {
		t.Fatalf("check of a running daemon = %+v, want available with a version", d)
	}
	if !d.NVIDIARuntime && !strings.Contains(d.Problem, "NVIDIA Container Toolkit") {
		t.Errorf("no NVIDIA runtime but the problem %q does not say what to install", d.Problem)
	}
	if d.NVIDIARuntime && d.Problem != "" {
		t.Errorf("NVIDIA runtime present but a problem is reported: %q", d.Problem)
	}
}

// The Launch view's launcher starts the simulator image in Docker, streams
// its log without secrets, reports the KV capacity, and Stop removes it.
func TestDockerLaunchStartsAndStops(t *testing.T) {
	opts := dockerOrSkip(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var lines []string
	srv, err := dockerLaunch(opts...)(ctx, simimage.Config("hf_ui_secret", "--max-model-len", "4096"), launchview.Progress{
		Log: func(s string) { mu.Lock(); lines = append(lines, s); mu.Unlock() },
	})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	if !strings.HasPrefix(srv.Endpoint, "http://127.0.0.1:") || srv.APIKey == "" || srv.KVCapacity <= 0 || srv.MaxModelLen != 4096 {
		t.Errorf("server = endpoint %q, key set %v, KV %d, max len %d", srv.Endpoint, srv.APIKey != "", srv.KVCapacity, srv.MaxModelLen)
	}
	mu.Lock()
	if len(lines) < 2 {
		t.Errorf("only %d log lines reached the pane", len(lines))
	}
	for _, l := range lines {
		if strings.Contains(l, "hf_ui_secret") || strings.Contains(l, srv.APIKey) {
			t.Errorf("a secret reached the log pane: %q", l)
		}
	}
	mu.Unlock()
	if err := srv.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// A recognised start-up failure comes back as *vllm.StartupError with the
// suggested --max-model-len, which the view offers as a one-click fix.
func TestDockerLaunchStartupError(t *testing.T) {
	opts := dockerOrSkip(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, err := dockerLaunch(opts...)(ctx, simimage.Config("hf_ui_secret", "--max-model-len", "200000", "--gpu-memory-utilization", "0.7"), launchview.Progress{})
	var se *vllm.StartupError
	if !errors.As(err, &se) || se.SuggestedMaxModelLen <= 0 {
		t.Fatalf("launch = %v, want a start-up error with a suggested --max-model-len", err)
	}
}

// The Container Toolkit's remedy reads as engine/docker words it
// (ToolkitHint) wherever the app shows it: the Docker check's finding, the
// Hardware view's card and the Launch view's banner for this computer and
// for a rig, whether or not the check wrote a Problem (issue 42 item 9: it
// was worded in four places, two of them without the nvidia-ctk step).
func TestToolkitRemedyIsWordedOnce(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	found := dockerFindings(session.DockerStatus{Version: "27.0"})
	unknown := dockerFindings(session.DockerStatus{Version: "27.0", RuntimesErr: session.ErrNoRuntimeInfo})
	bare := hwview.Docker{Checked: true, Available: true, Version: "27.0"} // no Problem written
	for name, d := range map[string]hwview.Docker{"the check": found, "a check that could not ask": unknown, "a finding without a problem": bare} {
		if !strings.Contains(d.RuntimeProblem(), docker.ToolkitHint) {
			t.Errorf("%s: %q lacks the remedy %q", name, d.RuntimeProblem(), docker.ToolkitHint)
		}
		hw := hwview.New()
		hw.Set(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}}, d)
		var labels []string
		for _, o := range test.LaidOutObjects(hw.Content()) {
			if l, ok := o.(*widget.Label); ok {
				labels = append(labels, l.Text)
			}
		}
		if !strings.Contains(strings.Join(labels, "\n"), docker.ToolkitHint) {
			t.Errorf("%s: the Hardware view lacks the remedy:\n%s", name, strings.Join(labels, "\n"))
		}
		v := launchview.New(a, w, target.NewChooser(target.Launch), nil)
		v.SetHardware(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}}, d)
		here := v.HardwareWarning()
		v.SetRigHardware(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}}, d)
		if rig := v.HardwareWarning(); !strings.Contains(here, docker.ToolkitHint) || !strings.Contains(rig, docker.ToolkitHint) {
			t.Errorf("%s: the Launch view's banners %q and %q lack the remedy", name, here, rig)
		}
	}
}
