package docker_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/google/uuid"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/vllm"
)

// These tests run the simulator image in the real Docker daemon. With
// CI=true they must run; elsewhere they skip when no daemon answers.

// launcher connects to the daemon with a label unique to this test, so the
// checks for leftovers see only what this test started, and builds the
// simulator image once per test binary.
func launcher(t *testing.T, opts ...docker.Option) (*docker.Launcher, string) {
	t.Helper()
	testID := uuid.NewString()
	// The test's own value of the managed label keeps a broad clean-up by
	// another package's test (or the app) from removing its containers.
	opts = append([]docker.Option{docker.WithoutGPU(), docker.WithLabels(map[string]string{docker.LabelManaged: "test-" + testID}),
		docker.WithReadyTimeout(2 * time.Minute), docker.WithPollInterval(100 * time.Millisecond)}, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t, opts...)
	t.Cleanup(func() {
		left, err := l.Managed(context.Background())
		if err != nil {
			t.Errorf("listing leftovers: %v", err)
		}
		if len(left) > 0 {
			t.Errorf("%d labelled containers remain after the test", len(left))
			l.RemoveAll(context.Background())
		}
	})
	return l, testID
}

func TestLaunchSimulatorImage(t *testing.T) {
	l, _ := launcher(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := l.EnsureImage(ctx, simimage.DefaultTag, nil); err != nil {
		t.Fatalf("EnsureImage of a present image: %v", err)
	}
	var mu sync.Mutex
	var lines []docker.LogLine
	began := time.Now()
	c, err := l.Start(ctx, simimage.Config("hf_integration_secret", "--max-model-len", "4096", "--max-num-seqs", "8"), func(ll docker.LogLine) {
		mu.Lock()
		lines = append(lines, ll)
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer c.Stop(ctx)
	t.Logf("ready %v after the start", time.Since(began))

	facts := c.Facts()
	if facts.KVCacheTokens <= 0 {
		t.Errorf("KV capacity not read from the log: %+v", facts)
	}
	if !strings.HasPrefix(c.Endpoint(), "http://127.0.0.1:") || !strings.HasPrefix(c.APIKey(), "rb-") {
		t.Errorf("endpoint %s, key %s", c.Endpoint(), c.APIKey())
	}
	mu.Lock()
	for _, ll := range lines {
		if strings.Contains(ll.Text, c.APIKey()) || strings.Contains(ll.Text, "hf_integration_secret") {
			t.Errorf("a secret reached the log observer: %q", ll.Text)
		}
	}
	n := len(lines)
	mu.Unlock()
	if n == 0 {
		t.Error("no log lines reached the observer")
	}

	// Without the key the server refuses; with it a streamed completion
	// arrives and ends with [DONE].
	resp, err := http.Get(c.Endpoint() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/v1/models without the key: %d, want 401", resp.StatusCode)
	}
	body := `{"model":"sim/tiny-model","prompt":"Hello there","max_tokens":8,"ignore_eos":true,"stream":true,` +
		`"stream_options":{"include_usage":true}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint()+"/v1/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	chunks, done := 0, false
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		switch line := sc.Text(); {
		case line == "data: [DONE]":
			done = true
		case strings.HasPrefix(line, "data: "):
			chunks++
		}
	}
	if resp.StatusCode != http.StatusOK || !done || chunks < 2 {
		t.Errorf("stream: status %d, %d chunks, done %v", resp.StatusCode, chunks, done)
	}

	if err := c.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	select {
	case <-c.Exited():
	default:
		t.Error("Exited not closed after Stop")
	}
}

// A max model length above the KV cache fails start-up with vLLM's message,
// which comes back as the typed error with the length that fits.
func TestLaunchMaxModelLenAboveKVCache(t *testing.T) {
	l, _ := launcher(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, err := l.Start(ctx, simimage.Config("hf_integration_secret", "--max-model-len", "200000", "--gpu-memory-utilization", "0.7"), nil)
	var se *vllm.StartupError
	if !errors.As(err, &se) || se.Kind != vllm.ErrMaxModelLen || se.SuggestedMaxModelLen <= 0 {
		t.Fatalf("Start = %v, want the max-model-len start-up error", err)
	}
	if !strings.Contains(err.Error(), "try --max-model-len") {
		t.Errorf("message %q lacks the fix", err)
	}
	var sf *docker.StartupFailure
	if !errors.As(err, &sf) || sf.ExitCode != 1 || len(sf.Tail) == 0 {
		t.Errorf("want a StartupFailure with exit code 1 and the log tail, got %#v", sf)
	}
	// The suggested value works.
	c, err := l.Start(ctx, simimage.Config("hf_integration_secret", "--max-model-len", strconv.Itoa(se.SuggestedMaxModelLen), "--gpu-memory-utilization", "0.7"), nil)
	if err != nil {
		t.Fatalf("Start with the suggested --max-model-len %d: %v", se.SuggestedMaxModelLen, err)
	}
	c.Stop(ctx)
}

// Cancelling during start-up stops and removes the container.
func TestLaunchCancelledDuringStartup(t *testing.T) {
	l, _ := launcher(t)
	cfg := simimage.Config("hf_integration_secret")
	// Simulated time: at --speed 50 this is a minute of real time.
	cfg.Extra = append(cfg.Extra, "--startup-delay", "3000s")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := l.Start(ctx, cfg, nil)
	if err == nil {
		c.Stop(ctx)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start = %v, want the context's error", err)
	}
}

func TestCleanupLeftovers(t *testing.T) {
	l, testID := launcher(t)
	ctx := context.Background()
	_, err := l.API().ContainerCreate(ctx, &container.Config{Image: simimage.DefaultTag,
		Labels: map[string]string{docker.LabelManaged: "test-" + testID}}, nil, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	n, err := l.CleanupLeftovers(ctx)
	if err != nil || n != 1 {
		t.Fatalf("CleanupLeftovers = %d, %v; want 1 removed", n, err)
	}
}

func TestEnsureImagePullFailure(t *testing.T) {
	l, _ := launcher(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := l.EnsureImage(ctx, "127.0.0.1:9/rigbench/nothing:v0", nil)
	var de *docker.Error
	if !errors.As(err, &de) || de.Kind != docker.ErrPull {
		t.Fatalf("EnsureImage = %v, want a pull error", err)
	}
}

// TestLaunchRefusedTokenStaysHidden: an image whose vLLM does not know
// --hf-token (the simulator's, like an old vLLM) echoes the argument it
// refuses, and the log tail and RigBench's own sentence ("the vLLM in this
// image does not know --hf-token hf_…") showed the token, in every spelling
// and abbreviation argparse takes (issue 36 item 7). Every line of the
// start-up failure passes the one redactor.
func TestLaunchRefusedTokenStaysHidden(t *testing.T) {
	l, _ := launcher(t)
	for _, args := range [][]string{{"--hf-token", "hf_extraSecretA1"}, {"--hf_token=hf_extraSecretA2"},
		{"--hf-tok", "hf_extraSecretA3"}, {"--api-k=sk_extraSecretA4"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		var mu sync.Mutex
		var seen []string
		cfg := simimage.Config("hf_integration_secret")
		cfg.Extra = append(cfg.Extra, args...)
		c, err := l.Start(ctx, cfg, func(ll docker.LogLine) {
			mu.Lock()
			seen = append(seen, ll.Text)
			mu.Unlock()
		})
		if err == nil {
			c.Stop(ctx)
		}
		cancel()
		var se *vllm.StartupError
		if !errors.As(err, &se) || se.Kind != vllm.ErrUnknownArgument {
			t.Errorf("%v: Start = %v, want the unknown-argument start-up error", args, err)
			continue
		}
		var sf *docker.StartupFailure
		errors.As(err, &sf)
		texts := []string{err.Error(), se.Argument}
		for _, ll := range sf.Tail {
			texts = append(texts, ll.Text)
		}
		mu.Lock()
		texts = append(texts, seen...)
		mu.Unlock()
		secret := args[len(args)-1]
		if _, v, ok := strings.Cut(secret, "="); ok {
			secret = v
		}
		for _, text := range texts {
			if strings.Contains(text, secret) {
				t.Errorf("%v: the token shows in %q", args, text)
			}
		}
	}
}

// HasPathIn sees into a folder bound to a container that is created and
// never started (the daemon mounts it for the archive stat), with "~" as
// the rig user's home, and removes the container: the launcher's
// clean-up check finds nothing labelled left.
func TestHasPathInSeesABindWithoutStarting(t *testing.T) {
	home := t.TempDir()
	l, _ := launcher(t, docker.WithHome(home))
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(home, "hf", "hub", "models--a--b", "snapshots", "0123"), 0o755); err != nil {
		t.Fatal(err)
	}
	binds := []string{"~/hf:" + vllm.ContainerHFCache}
	for model, want := range map[string]bool{"models--a--b": true, "models--c--d": false} {
		got, err := l.HasPathIn(ctx, simimage.DefaultTag, binds, vllm.ContainerHFCache+"/hub/"+model+"/snapshots")
		if err != nil || got != want {
			t.Errorf("%s: HasPathIn = %v, %v; want %v", model, got, err, want)
		}
	}
}
