package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/google/uuid"
	"golang.org/x/crypto/ssh"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rig/rigtest"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/store"
)

// rigEnv is the CLI's environment with the test's HOME (the SSH settings
// sshd trusts) and an instance label of its own.
func rigEnv(s *rigtest.Server) (*env, *syncBuffer, *syncBuffer) {
	instance := "cli-rig-test-" + uuid.NewString()
	e, out, errb := launchEnv(nil)
	e.getenv = func(k string) string {
		if k == "RIGBENCH_INSTANCE" {
			return instance
		}
		return s.Getenv(k)
	}
	return e, out, errb
}

func TestRigsListsTheLocalDaemonAndDockerContexts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	meta := filepath.Join(dir, "contexts", "meta", "0123abcd")
	if err := os.MkdirAll(meta, 0o700); err != nil {
		t.Fatal(err)
	}
	doc := `{"Name":"basement","Metadata":{"Description":"the 3090 box"},"Endpoints":{"docker":{"Host":"ssh://me@basement"}}}`
	if err := os.WriteFile(filepath.Join(meta, "meta.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	e, out, errb := launchEnv(map[string]string{"DOCKER_CONFIG": dir, "HOME": t.TempDir()})
	if code := execute(context.Background(), e, []string{"rigs"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "local ") || !strings.Contains(lines[2], "basement") ||
		!strings.Contains(lines[2], "ssh://me@basement") || !strings.Contains(lines[2], "the 3090 box") || !strings.HasPrefix(lines[3], "ssh://") {
		t.Errorf("rigs printed:\n%s", out.String())
	}
}

func TestRigFlagMistakesAreUsageErrors(t *testing.T) {
	t.Parallel()
	for want, args := range map[string][]string{
		"--rig applies only to a launch":       {"run", "--demo", "--rig", "ssh://me@box"},
		"the scheme":                           {"run", "--launch", "--model", "m", "--rig", "tcp://box:2375"},
		"the port":                             {"hw", "--rig", "ssh://me@box:0"},
		"--no-gpu applies":                     {"hw", "--no-gpu"},
		"--rig applies only to a launch: the":  {"tune", "--demo", "--rig", "ssh://me@box", "--contexts", "0", "--concurrency", "1", "--vary", "--max-num-seqs=8,16"},
		"--rig \"tcp://box:2375\": the scheme": {"tune", "--launch", "--model", "m", "--rig", "tcp://box:2375", "--contexts", "0", "--concurrency", "1", "--vary", "--max-num-seqs=8,16"},
	} {
		e, _, errb := launchEnv(nil)
		if code := execute(context.Background(), e, args); code != 2 || !strings.Contains(errb.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, errb.String(), want)
		}
	}
}

func TestHWOnSSHRigRefusesAnUnknownHostKey(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{Unknown: true})
	e, _, errb := rigEnv(s)
	code := execute(context.Background(), e, []string{"hw", "--rig", s.URL(), "--image", simimage.DefaultTag, "--no-gpu"})
	msg := errb.String()
	if code == 0 || !strings.Contains(msg, ssh.FingerprintSHA256(s.HostKey)) || !strings.Contains(msg, "ssh-keyscan") {
		t.Fatalf("exit %d, stderr %q: want the host key refused with its fingerprint", code, msg)
	}
}

// hw --rig reads the rig's GPU through its Docker: nvidia-smi in a
// short-lived container of the simulator image answers with the stand-in.
func TestHWOnSSHRigShowsTheStandInGPU(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dockertest.Launcher(ctx, t)
	s := rigtest.Start(t, rigtest.Options{})
	e, out, errb := rigEnv(s)
	if code := execute(ctx, e, []string{"hw", "--rig", s.URL(), "--image", simimage.DefaultTag, "--no-gpu"}); code != 0 {
		t.Fatalf("exit %d: %s\nsshd:\n%s", code, errb.String(), s.Log())
	}
	t.Logf("hw --rig %s:\n%s", s.URL(), out.String())
	p := sim.DefaultProfile()
	for _, want := range []string{`GPU 0\s+` + regexp.QuoteMeta(p.GPUName), "12.0 GiB total", "170 W", "gen 4, width 16", "575.64.03-sim", `threads; model and cores not reported`, `GiB; available not reported`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("hw --rig does not show %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(s.Log(), "docker.sock") {
		t.Errorf("the Docker API did not go through sshd:\n%s", s.Log())
	}
}

// The "done when": run --rig ssh://… --launch --model sim/tiny
// completes through the tunnel and records the rig's stand-in GPU.
func TestRunOnSSHRigCompletesThroughTheTunnel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dockertest.Launcher(ctx, t)
	s := rigtest.Start(t, rigtest.Options{})
	e, _, errb := rigEnv(s)
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "run.json")
	code := execute(ctx, e, []string{"run", "--rig", s.URL(), "--launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
		"--no-gpu", "--contexts", "0", "--concurrency", "1,2", "--prefill", "none", "--duration", "4s", "--max-output", "32",
		"--db", filepath.Join(dir, "h.db"), "--json", jsonPath, "--", "--max-model-len", "4096", "--speed", "10"})
	if code != 0 || !strings.Contains(errb.String(), "[2/2]") {
		t.Fatalf("exit %d:\n%s\nsshd:\n%s", code, errb.String(), s.Log())
	}
	t.Logf("run --rig %s --launch …:\n%s", s.URL(), errb.String())
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var run rundoc.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if run.Hardware == nil || len(run.Hardware.GPUs) != 1 || run.Hardware.GPUs[0].Name != sim.DefaultProfile().GPUName {
		t.Errorf("the run records hardware %+v, want the rig's stand-in GPU", run.Hardware)
	}
	for _, c := range run.Cells {
		if !c.Status.Ran() {
			t.Errorf("cell %d×%d: %s %s", c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	if !strings.Contains(s.Log(), "direct-tcpip") {
		t.Errorf("no benchmark traffic went through sshd:\n%s", s.Log())
	}
	// The default compile cache is the rig user's folder, made on the
	// rig's disk (the simulator keeps its markers there), not this
	// machine's folder beside the history.
	if want := "-v " + session.RigCompileCache + ":" + vllm.ContainerCompileCache; !strings.Contains(errb.String(), want) {
		t.Errorf("the launch's docker command lacks %q", want)
	}
	onRig := filepath.Join(s.RigHome, strings.TrimPrefix(session.RigCompileCache, "~/"), "torch_compile_cache")
	if _, err := os.Stat(onRig); err != nil {
		t.Errorf("the compile cache is not in the rig user's home: %v", err)
	}
	if here, err := store.CompileCacheDir(e.getenv); err == nil {
		if _, err := os.Stat(here); err == nil {
			t.Errorf("a launch on the rig made this machine's compile cache %s", here)
		}
	}
}

// A rig that does not say its home folder gets no default compile cache
// (whose folder is in that home), said in the log, and the run goes on:
// the cache only saves time.
func TestRigWithoutAHomeRunsWithoutTheCompileCache(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dockertest.Launcher(ctx, t)
	s := rigtest.Start(t, rigtest.Options{NoHome: true})
	e, _, errb := rigEnv(s)
	dir := t.TempDir()
	code := execute(ctx, e, []string{"run", "--rig", s.URL(), "--launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
		"--no-gpu", "--hf-cache", filepath.Join(dir, "hf"), "--contexts", "0", "--concurrency", "1", "--prefill", "none",
		"--duration", "2s", "--max-output", "16", "--db", filepath.Join(dir, "h.db"), "--", "--max-model-len", "4096", "--speed", "20"})
	if code != 0 || !strings.Contains(errb.String(), "no compile cache on the rig") || strings.Contains(errb.String(), ":"+vllm.ContainerCompileCache+" ") {
		t.Fatalf("exit %d, want a run without the compile cache that says so:\n%s", code, errb.String())
	}
}

// tune --rig sweeps on the rig through the one tunnel: each variant
// launches there, records the rig (without the user name) and the rig's
// stand-in GPU, and the spec kept for --resume names the rig.
func TestTuneOnSSHRig(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dockertest.Launcher(ctx, t)
	s := rigtest.Start(t, rigtest.Options{})
	e, _, errb := rigEnv(s)
	db := filepath.Join(t.TempDir(), "h.db")
	code := execute(ctx, e, []string{"tune", "--rig", s.URL(), "--launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
		"--no-gpu", "--contexts", "0", "--concurrency", "1", "--duration", "4s", "--max-output", "32", "--db", db,
		"--vary", "max-num-seqs=2,4", "--", "--max-model-len", "4096", "--speed", "10"})
	if code != 0 {
		t.Fatalf("exit %d:\n%s\nsshd:\n%s", code, errb.String(), s.Log())
	}
	h, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	list, err := h.List(ctx, store.Filter{})
	if err != nil || len(list) != 3 {
		t.Fatalf("%d runs in the history (%v), want the three variants (the base flags, then max-num-seqs 2 and 4)", len(list), err)
	}
	wantRig := fmt.Sprintf("ssh://127.0.0.1:%d", s.Port)
	for _, sum := range list {
		r, err := h.Get(ctx, sum.UUID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Rig == nil || r.Rig.Name != wantRig || r.Hardware == nil || len(r.Hardware.GPUs) != 1 || r.Hardware.GPUs[0].Name != sim.DefaultProfile().GPUName {
			t.Errorf("variant %q records rig %+v and hardware %+v, want %s and the rig's stand-in GPU", r.Name, r.Rig, r.Hardware, wantRig)
		}
	}
	spec, _, ok := tune.LatestSpec(tune.SpecDir(db))
	if !ok || spec.Rig != s.URL() {
		t.Errorf("the kept spec names the rig %q (found %v), want %q for --resume", spec.Rig, ok, s.URL())
	}
	// The variants share the rig user's compile cache, not this machine's.
	if spec.Base.CompileCache != session.RigCompileCache {
		t.Errorf("the sweep mounts the compile cache %q, want the rig user's %q", spec.Base.CompileCache, session.RigCompileCache)
	}
	if !strings.Contains(s.Log(), "direct-tcpip") {
		t.Errorf("no benchmark traffic went through sshd:\n%s", s.Log())
	}
}

// launch --rig starts the server on the rig through the tunnel, says that
// its endpoint is the rig's loopback, and removes it on Ctrl-C.
func TestLaunchOnSSHRigUntilInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	s := rigtest.Start(t, rigtest.Options{})
	e, out, errb := rigEnv(s)
	runCtx, interrupt := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- execute(runCtx, e, []string{"launch", "--rig", s.URL(), "--model", "sim/tiny", "--image", simimage.DefaultTag,
			"--no-gpu", "--timeout", "2m", "--", "--max-model-len", "4096", "--speed", "50"})
	}()
	for !strings.Contains(out.String(), "on the rig: ") {
		select {
		case code := <-done:
			t.Fatalf("launch ended early with %d\nstdout %s\nstderr %s\nsshd:\n%s", code, out.String(), errb.String(), s.Log())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !strings.Contains(out.String(), "ssh -L ") || !strings.Contains(s.Log(), "docker.sock") {
		t.Errorf("stdout %s\nsshd:\n%s", out.String(), s.Log())
	}
	interrupt()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after Ctrl-C\nstderr %s", code, errb.String())
	}
	list, err := l.API().ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if c.Labels[docker.LabelInstance] == e.getenv("RIGBENCH_INSTANCE") {
			t.Errorf("container %s remains after Ctrl-C", c.Names)
		}
	}
}

// sshd killed mid-run: the run ends with the rig's sentence, keeps the
// finished cell in the history, and says how to measure the rest.
func TestRunOnSSHRigKeepsCellsWhenSSHDDies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := rigtest.Start(t, rigtest.Options{})
	e, _, errb := rigEnv(s)
	// The clean-up removes only this run's container (its instance label):
	// every RigBench container on the daemon would include the servers of
	// tests running beside this one, in other packages or checkouts, killed
	// mid-start with exit code 137 on a busy machine.
	l := dockertest.Launcher(ctx, t, docker.WithLabels(map[string]string{docker.LabelInstance: e.getenv("RIGBENCH_INSTANCE")}))
	t.Cleanup(func() { l.RemoveAll(context.Background()) }) // the server the run could not stop
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, e, []string{"run", "--rig", s.URL(), "--launch", "--model", "sim/tiny", "--image", simimage.DefaultTag,
			"--no-gpu", "--contexts", "0", "--concurrency", "1,2,4", "--prefill", "none", "--duration", "20s", "--max-output", "64",
			"--db", filepath.Join(t.TempDir(), "h.db"), "--", "--max-model-len", "4096", "--speed", "10"})
	}()
	measuring := regexp.MustCompile(`\[2/3\][^\n]*measuring`)
	for !measuring.MatchString(errb.String()) {
		select {
		case code := <-done:
			t.Fatalf("the run ended before the kill with %d:\n%s", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.Kill()
	code := <-done
	msg := errb.String()
	t.Logf("after the kill:\n%s", msg[strings.LastIndex(msg, "[2/3]"):])
	for _, want := range []string{"the SSH connection to " + s.User + "@" + s.Addr() + " dropped", "1 of 3 cells were measured and kept",
		"with the same --rig and --launch flags", "--resume ", "is left running on the rig (a launch there after this RigBench exits removes it)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the run's end does not say %q:\n%s", want, msg)
		}
	}
	if code == 0 {
		t.Errorf("exit 0 for a run whose rig dropped")
	}
}
