package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/launchview"
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
