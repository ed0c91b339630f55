package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildSim builds the static binary the way the Makefile does.
func buildSim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rigbench-sim")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func TestExitCodes(t *testing.T) {
	bin := buildSim(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--foo"}, 2, "api_server.py: error: unrecognized arguments: --foo"},
		{[]string{"--gpu-memory-utilization", "0.7"}, 1, "the estimated maximum model length is"},
	} {
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != tc.code || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: exit %v, output %q; want exit %d and %q", tc.args, err, out, tc.code, tc.want)
		}
	}
}

func TestServesAndStopsOnSIGTERM(t *testing.T) {
	bin := buildSim(t)
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", "0", "--speed", "50", "--max-model-len", "32k")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	re := regexp.MustCompile(`Uvicorn running on (http://127\.0\.0\.1:\d+)`)
	var url string
	var log []string
	for sc.Scan() {
		log = append(log, sc.Text())
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	joined := strings.Join(log, "\n")
	for _, want := range []string{"GPU KV cache size: 431,632 tokens", "Maximum concurrency for 32,000 tokens per request: 13.49x", "Application startup complete."} {
		if !strings.Contains(joined, want) {
			t.Errorf("log lacks %q:\n%s", want, joined)
		}
	}
	if url == "" {
		t.Fatal("no listening line")
	}
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/health: %v %v", err, resp)
	}
	resp.Body.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop on SIGTERM")
	}
}

// Run under the name nvidia-smi (the simulator image links it so), the
// binary is the stand-in nvidia-smi rather than the server.
func TestRunAsNvidiaSMI(t *testing.T) {
	bin := buildSim(t)
	smi := filepath.Join(filepath.Dir(bin), "nvidia-smi")
	if err := os.Rename(bin, smi); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(smi, "--query-gpu=name", "--format=csv,noheader").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "NVIDIA GeForce RTX 3060" {
		t.Fatalf("nvidia-smi answered %q, %v", out, err)
	}
}

// Run as ray and as vllm (the simulator image links both), the binary is
// the stand-in Ray, labelled so, and `vllm serve`: a head, a worker that
// joins it over TCP, and a server whose world spans both, through real
// processes.
func TestRunAsRayAndVLLM(t *testing.T) {
	bin := buildSim(t)
	dir := filepath.Dir(bin)
	for _, name := range []string{"ray", "vllm"} {
		if err := os.Link(bin, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ray := filepath.Join(dir, "ray")
	// Ray's folder (its head's address file) in the test's, not /tmp/ray.
	t.Setenv("RAY_TMPDIR", t.TempDir())
	out, err := exec.Command(ray, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-sim") || !strings.Contains(string(out), "not Ray") {
		t.Fatalf("ray --version: %q, %v; want the stand-in's label", out, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	head := exec.Command(ray, "start", "--head", "--port", fmt.Sprint(port), "--block")
	headOut := lineCh(t, head)
	defer head.Process.Kill()
	waitFor(t, headOut, "Ray runtime started.")
	worker := exec.Command(ray, "start", "--address="+addr, "--block", "--node-ip-address", "127.0.0.2")
	workerOut := lineCh(t, worker)
	defer worker.Process.Kill()
	waitFor(t, workerOut, "Ray runtime started.")
	serve := exec.Command(filepath.Join(dir, "vllm"), "serve", "--model", "sim/tiny", "--profile", "tiny", "--host", "127.0.0.1", "--port", "0",
		"--pipeline-parallel-size", "2", "--distributed-executor-backend", "ray")
	serve.Env = append(os.Environ(), "RAY_ADDRESS="+addr)
	serveOut := lineCh(t, serve)
	defer serve.Process.Kill()
	waitFor(t, serveOut, "placed on 127.0.0.1 (node_1, 1 GPU), 127.0.0.2 (node_2, 1 GPU)")
	waitFor(t, serveOut, "Application startup complete.")
	worker.Process.Kill() // the worker's node dies: its TCP connection closes
	waitFor(t, serveOut, "ActorDiedError")
	err = serve.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("vllm serve after its worker died: %v; want exit 1", err)
	}
}

// lineCh starts cmd and sends its output lines on the returned channel.
func lineCh(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// waitFor reads lines until one holds want; the output ending first fails.
func waitFor(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	var seen []string
	for l := range lines {
		if strings.Contains(l, want) {
			return
		}
		seen = append(seen, l)
	}
	t.Fatalf("the output ended without %q:\n%s", want, strings.Join(seen, "\n"))
}
