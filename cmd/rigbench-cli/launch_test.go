package main

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/google/uuid"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
)

// syncBuffer is a bytes.Buffer safe for the log goroutine and the command.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func launchEnv(vars map[string]string) (*env, *syncBuffer, *syncBuffer) {
	out, errb := &syncBuffer{}, &syncBuffer{}
	return &env{stdout: out, stderr: errb, stdin: strings.NewReader(""), getenv: func(k string) string { return vars[k] }}, out, errb
}

func TestLaunchPrintDocker(t *testing.T) {
	t.Parallel()
	// The compile cache folder is mounted by default (beside the history),
	// a given one instead, and none with off.
	for flag, mount := range map[string]string{
		"":                 "-v /home/me/.local/share/rigbench/compile-cache:/root/.cache/vllm ",
		"/fast/vllm-cache": "-v /fast/vllm-cache:/root/.cache/vllm ",
		"off":              "",
	} {
		e, out, errb := launchEnv(map[string]string{"HF_TOKEN": "hf_never_printed", "HOME": "/home/me"})
		args := []string{"launch", "--model", "Qwen/Qwen2.5-1.5B-Instruct", "--image", "vllm/vllm-openai:v0.10.1.1", "--gpus", "0", "--print-docker"}
		if flag != "" {
			args = append(args, "--compile-cache", flag)
		}
		code := execute(context.Background(), e, append(args, "--", "--max-model-len", "16k", "--limit-mm-per-prompt", `{"image":0}`))
		want := `docker run --rm --gpus '"device=0"' --ipc=host -p 127.0.0.1:8000:8000 ` +
			`-v ~/.cache/huggingface:/root/.cache/huggingface ` + mount + `-e HF_TOKEN -e HUGGING_FACE_HUB_TOKEN ` +
			`vllm/vllm-openai:v0.10.1.1 --model Qwen/Qwen2.5-1.5B-Instruct --max-model-len 16k --limit-mm-per-prompt '{"image":0}'` + "\n"
		if code != 0 || out.String() != want {
			t.Errorf("--compile-cache %q: exit %d\n got %s\nwant %s\nstderr %s", flag, code, out.String(), want, errb.String())
		}
	}
}

// The run record of a --no-gpu launch says no GPU, not the --gpus
// default "all" (issue 12 #11), for run --launch as for launch.
func TestNoGPURecord(t *testing.T) {
	t.Parallel()
	e, _, _ := launchEnv(nil)
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f.register(fs)
	set, rest, err := parseSet(fs, []string{"--launch", "--no-gpu", "--image", "rigbench-sim:test", "--model", "sim/tiny"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.targetInput(e, set, rest, false)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := f.options(e, rundoc.Plan{}, in)
	if err != nil {
		t.Fatal(err)
	}
	launcher := opts.Launcher.(*session.DockerLauncher)
	rec := launcher.Config.Record()
	if rec.GPUs != "" || strings.Contains(rec.DockerCommand, "--gpus") {
		t.Errorf("a --no-gpu run records GPUs %q and %q", rec.GPUs, rec.DockerCommand)
	}
}

func TestLaunchRefusesBadSettings(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"--model needs":           {"launch", "--print-docker"},
		"must be at least":        {"launch", "--model", "m", "--print-docker", "--", "--max-num-seqs", "0"},
		"needs vLLM 0.12.0":       {"launch", "--model", "m", "--image", "vllm/vllm-openai:v0.6.3", "--print-docker", "--", "--kv-cache-dtype", "nvfp4"},
		"not an image name":       {"launch", "--model", "m", "--image", "Not An Image", "--print-docker"},
		"--max-model-len needs a": {"launch", "--model", "m", "--print-docker", "--", "--max-model-len"},
	}
	for want, args := range cases {
		e, _, errb := launchEnv(nil)
		if code := execute(context.Background(), e, args); code == 0 || !strings.Contains(errb.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want it to mention %q", args, code, errb.String(), want)
		}
	}
}

// TestLaunchSimulatorUntilInterrupt launches the simulator image through the
// real daemon, reads the endpoint the command prints, checks the server
// answers, then "presses Ctrl-C" and checks the container is gone.
func TestLaunchSimulatorUntilInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	instance := "cli-test-" + uuid.NewString()
	e, out, errb := launchEnv(map[string]string{"RIGBENCH_INSTANCE": instance})
	cache := t.TempDir()
	runCtx, interrupt := context.WithCancel(ctx)
	done := make(chan int)
	go func() {
		done <- execute(runCtx, e, []string{"launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
			"--no-gpu", "--timeout", "2m", "--compile-cache", cache, "--", "--max-model-len", "4096", "--speed", "50"})
	}()
	endpoint := regexp.MustCompile(`endpoint: (http://127\.0\.0\.1:\d+)`)
	var url string
	for url == "" {
		select {
		case code := <-done:
			t.Fatalf("launch ended early with %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
		case <-time.After(100 * time.Millisecond):
			if m := endpoint.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "KV cache:") {
				url = m[1]
			}
		}
	}
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/health: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	interrupt()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after Ctrl-C\nstderr %s", code, errb.String())
	}
	// The start's time and vLLM's split of it, from the first start with
	// an empty compile cache folder.
	if !regexp.MustCompile(`start-up: \d+\.\d s \(weights 38\.4 s, compile 41\.2 s, graphs 14\.0 s\)`).MatchString(out.String()) {
		t.Errorf("stdout lacks the start-up split:\n%s", out.String())
	}
	left, err := l.API().ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range left {
		if c.Labels[docker.LabelInstance] == instance {
			t.Errorf("container %s remains after Ctrl-C", c.Names)
		}
	}
}

// The repro: `run --launch` measures while a plain `launch` (no
// RIGBENCH_INSTANCE) starts. The run's container carries the run's
// instance label, the second launch's clean-up leaves it alone (its owner
// is alive), and the run finishes complete.
func TestSecondLaunchSparesARunningBenchmark(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	instance := "cli-test-" + uuid.NewString()
	runEnv, _, runErr := launchEnv(map[string]string{"RIGBENCH_INSTANCE": instance})
	runDone := make(chan int, 1)
	go func() {
		runDone <- execute(ctx, runEnv, []string{"run", "--launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
			"--no-gpu", "--contexts", "0", "--concurrency", "1,2,4", "--prefill", "none", "--duration", "6s",
			"--max-output", "32", "--db", t.TempDir() + "/h.db", "--no-telemetry", "--", "--max-model-len", "4096", "--speed", "5"})
	}()
	for !strings.Contains(runErr.String(), "[1/") {
		select {
		case code := <-runDone:
			t.Fatalf("run ended early with %d:\n%s", code, runErr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	list, err := l.API().ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, c := range list {
		if c.Labels[docker.LabelInstance] == instance {
			mine++
		}
	}
	if mine != 1 {
		t.Errorf("%d containers carry the run's RIGBENCH_INSTANCE, want 1", mine)
	}

	launchCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	e, out, errb := launchEnv(nil)
	launchDone := make(chan int, 1)
	go func() {
		launchDone <- execute(launchCtx, e, []string{"launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
			"--no-gpu", "--timeout", "2m", "--", "--max-model-len", "4096", "--speed", "20"})
	}()
	for !strings.Contains(out.String(), "endpoint:") {
		select {
		case code := <-launchDone:
			t.Fatalf("the second launch ended with %d:\n%s", code, errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	interrupt()
	<-launchDone
	if code := <-runDone; code != 0 || !strings.Contains(runErr.String(), "[3/3]") {
		t.Fatalf("the measured run ended with %d after a second launch:\n%s", code, runErr.String())
	}
}
