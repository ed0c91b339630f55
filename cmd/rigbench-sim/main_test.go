package main

import (
	"bufio"
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
