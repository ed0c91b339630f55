package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rig/rigtest"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
)

// twoRigArgs are the cluster flags for two loopback rigs reached from one
// HOME: the head at 127.0.0.1, the worker at 127.0.0.2, on free ports.
func twoRigArgs(t *testing.T) (*env, *syncBuffer, *syncBuffer, []*rigtest.Server, []string) {
	t.Helper()
	s1 := rigtest.Start(t, rigtest.Options{})
	s2 := rigtest.Start(t, rigtest.Options{Share: s1})
	e, out, errb := rigEnv(s1)
	var ports []string
	for range 2 {
		p, err := docker.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, fmt.Sprint(p))
	}
	return e, out, errb, []*rigtest.Server{s1, s2}, []string{"--rigs", "head=" + s1.URL() + "," + s2.URL(), "--node-ips", "127.0.0.1,127.0.0.2",
		"--interface", "lo", "--ray-port", ports[0], "--image", simimage.ClusterTag, "--no-gpu"}
}

// containersOf are the containers of the CLI's instance on the daemon both
// rigs reach.
func containersOf(ctx context.Context, t *testing.T, l *docker.Launcher, e *env) []string {
	t.Helper()
	list, err := l.API().ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list {
		if c.Labels[docker.LabelInstance] == e.getenv("RIGBENCH_INSTANCE") {
			names = append(names, strings.Join(c.Names, ","))
		}
	}
	return names
}

// The command: run --launch --rigs over two loopback rigs, the
// simulator image as the cluster, contexts 0 and 16K at concurrency 1 and
// 8: every cell Valid, the cluster recorded, nothing left on either rig.
func TestRunLaunchOverTwoRigs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	e, _, errb, servers, cluster := twoRigArgs(t)
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "run.json")
	p := freePort(t)
	args := append([]string{"run", "--launch", "--model", "sim/qwen3-4b"}, cluster...)
	args = append(args, "--serve-port", fmt.Sprint(p), "--contexts", "0,16K", "--concurrency", "1,8", "--prefill", "none", "--duration", "20s",
		"--max-output", "128", "--db", filepath.Join(dir, "h.db"), "--json", jsonPath, "--", "--speed", "20")
	code := execute(ctx, e, args)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\nsshd:\n%s\n%s", code, errb.String(), servers[0].Log(), servers[1].Log())
	}
	t.Logf("%s:\n%s", strings.Join(args, " "), errb.String())
	run := readRunFile(t, jsonPath)
	if len(run.Cells) != 4 {
		t.Errorf("%d cells; want 4", len(run.Cells))
	}
	for _, c := range run.Cells {
		if c.Status != rundoc.StatusValid {
			t.Errorf("cell %d×%d: %s %s", c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	// The name ends with the link measured between the rigs: the
	// stand-in reads the simulated 10 Gb/s (less on a loaded machine).
	if run.Launch == nil || run.Launch.Cluster == nil || !strings.HasPrefix(run.Launch.Cluster.Text(), "2 rigs, TP 1 × PP 2 over lo at ") ||
		run.Launch.Cluster.Link == nil || run.Launch.Cluster.Link.Gbps > 10.0001 {
		t.Errorf("recorded launch %+v; want the cluster of 2 rigs, TP 1 × PP 2 over lo at the measured link", run.Launch)
	}
	if left := containersOf(ctx, t, l, e); len(left) != 0 {
		t.Errorf("containers left: %v", left)
	}
}

// launch --rigs serves until Ctrl-C, then nothing stays on either rig.
func TestLaunchOverTwoRigsUntilInterrupt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	e, out, errb, _, cluster := twoRigArgs(t)
	p := freePort(t)
	runCtx, interrupt := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- execute(runCtx, e, append(append([]string{"launch", "--model", "sim/tiny", "--port", fmt.Sprint(p)}, cluster...),
			"--", "--profile", "tiny", "--speed", "50"))
	}()
	for !strings.Contains(out.String(), "endpoint: ") {
		select {
		case code := <-done:
			t.Fatalf("launch ended early with %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !strings.Contains(out.String(), "benchmark it with run --launch --rigs") {
		t.Errorf("stdout %s; want the cluster's way to benchmark it", out.String())
	}
	if n := len(containersOf(ctx, t, l, e)); n != 2 {
		t.Errorf("%d containers while serving; want the head and the worker", n)
	}
	interrupt()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after Ctrl-C\nstderr %s", code, errb.String())
	}
	if left := containersOf(ctx, t, l, e); len(left) != 0 {
		t.Errorf("containers left after Ctrl-C: %v", left)
	}
}

func TestClusterFlagMistakesAreUsageErrors(t *testing.T) {
	t.Parallel()
	for want, args := range map[string][]string{
		"a cluster needs two rigs or more":     {"run", "--launch", "--model", "m", "--rigs", "ssh://a"},
		"--rigs applies only to a launch":      {"run", "--demo", "--rigs", "ssh://a,ssh://b"},
		"--rig names one rig":                  {"run", "--launch", "--model", "m", "--rig", "ssh://a", "--rigs", "ssh://a,ssh://b"},
		"--interface must be a network":        {"run", "--launch", "--model", "m", "--rigs", "ssh://a,ssh://b", "--interface", "en p1"},
		"--node-ips \"10.0.0.x\" is not an IP": {"run", "--launch", "--model", "m", "--rigs", "ssh://a,ssh://b", "--node-ips", "10.0.0.1,10.0.0.x"},
		"--rigs applies only to a launch:":     {"tune", "--demo", "--rigs", "ssh://a,ssh://b", "--contexts", "0", "--concurrency", "1", "--vary", "--max-num-seqs=8,16"},
	} {
		e, _, errb := launchEnv(nil)
		if code := execute(context.Background(), e, args); code != 2 || !strings.Contains(errb.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, errb.String(), want)
		}
	}
}

// The worker rig's sshd killed mid-run: the run names the rig that
// dropped and says how to resume, and no container stays on either rig
// (the head is stopped through its rig; the worker, its head gone, ends
// and its daemon removes it).
func TestRunOverTwoRigsWhenTheWorkerRigDrops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	e, _, errb, servers, cluster := twoRigArgs(t)
	p := freePort(t)
	done := make(chan int, 1)
	go func() {
		args := append(append([]string{"run", "--launch", "--model", "sim/tiny"}, cluster...), "--serve-port", fmt.Sprint(p),
			"--contexts", "0", "--concurrency", "1,2,4", "--prefill", "none", "--duration", "20s", "--max-output", "64",
			"--db", filepath.Join(t.TempDir(), "h.db"), "--", "--profile", "tiny", "--speed", "10")
		done <- execute(ctx, e, args)
	}()
	for !strings.Contains(errb.String(), "[2/3]") {
		select {
		case code := <-done:
			t.Fatalf("the run ended before the kill with %d:\n%s", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	servers[1].Kill()
	code := <-done
	msg := errb.String()
	if code == 0 || !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d", servers[1].Port)) || !strings.Contains(msg, "dropped") || !strings.Contains(msg, "--resume") {
		t.Errorf("exit %d; want a failure naming the dropped rig and how to resume:\n%s", code, msg)
	}
	t.Logf("the run ends with:\n%s", msg[max(0, len(msg)-900):])
	for deadline := time.Now().Add(time.Minute); ; {
		left := containersOf(ctx, t, l, e)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("containers left a minute after the run: %v", left)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tune over two loopback rigs: every variant launches the stand-in
// cluster through the same launcher as run --launch --rigs and measures
// the same cells; the interface is varied (--vary interface=…: the
// cluster's own lo is the base, eth0 a variant whose nodes take it and
// whose run records it), the verdict compares the two, and nothing stays
// on either rig.
func TestTuneOverTwoRigs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	e, out, errb, _, cluster := twoRigArgs(t)
	p := freePort(t)
	dir := t.TempDir()
	db, doc := filepath.Join(dir, "h.db"), filepath.Join(dir, "sweep.json")
	args := append(append([]string{"tune", "--launch", "--model", "sim/tiny"}, cluster...), "--serve-port", fmt.Sprint(p),
		"--contexts", "0", "--concurrency", "8", "--duration", "10s", "--max-output", "64",
		"--vary", "interface=lo,eth0", "--db", db, "--json", doc, "--", "--profile", "tiny", "--speed", "10", "--max-num-seqs", "8")
	code := execute(ctx, e, args)
	logs := errb.String()
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out.String(), logs)
	}
	for _, want := range []string{"TP 1 × PP 2", "2 of 2 node(s) joined", "nvidia-smi in the Ray node's container on each of the 2 rigs",
		"NCCL_SOCKET_IFNAME=lo", "NCCL_SOCKET_IFNAME=eth0"} {
		if !strings.Contains(logs+out.String(), want) {
			t.Errorf("the sweep's output lacks %q", want)
		}
	}
	if !strings.Contains(out.String(), "over eth0") {
		t.Errorf("the verdict does not compare the variants:\n%s", out.String())
	}
	if strings.Count(logs, "Starting vllm serve in the head's container") != 2 {
		t.Errorf("want two variants served over the rigs")
	}
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tune.ReadDoc(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Variants) != 2 || d.Variants[1].Interface != "eth0" || d.Variants[1].Label != "over eth0" || d.Variants[0].Interface != "lo" {
		t.Errorf("sweep document's variants %+v; want the base over lo and one over eth0", d.Variants)
	}
	over := map[string]string{}
	for _, r := range sweepRuns(t, db, d.SweepID) {
		if r.Launch != nil && r.Launch.Cluster != nil {
			over[r.Name] = r.Launch.Cluster.Interface
		}
	}
	if len(over) != 2 || over[tune.RunName(d.SweepID, tune.Variant{Interface: "eth0"})] != "eth0" || over[tune.RunName(d.SweepID, tune.Variant{})] != "lo" {
		t.Errorf("the runs' clusters are over %v; want the base over lo and the variant over eth0", over)
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), logs)
	}
	if left := containersOf(ctx, t, l, e); len(left) != 0 {
		t.Errorf("containers left after the sweep: %v", left)
	}
}

// A split the rigs cannot give refuses the sweep before anything starts:
// the sweep reads both rigs' GPUs (one each, the stand-in's nvidia-smi),
// and TP 2 (tensor parallelism across rigs) is refused with
// engine/cluster's sentence naming the variant, before the base variant
// launches; no container was started on either rig.
func TestTuneOverTwoRigsRefusesASplitBeforeStarting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	e, out, errb, _, cluster := twoRigArgs(t)
	args := append(append([]string{"tune", "--launch", "--model", "sim/tiny"}, cluster...), "--serve-port", fmt.Sprint(freePort(t)),
		"--contexts", "0", "--concurrency", "8", "--duration", "10s", "--max-output", "64",
		"--vary", "split=1x2,2x2", "--db", filepath.Join(t.TempDir(), "h.db"), "--", "--profile", "tiny", "--speed", "10")
	code := execute(ctx, e, args)
	logs := errb.String() + out.String()
	if code == 0 {
		t.Fatalf("the sweep ran:\n%s", logs)
	}
	for _, want := range []string{"the variant --tensor-parallel-size 2 --pipeline-parallel-size 2", "TP 2 is refused: rig ssh://",
		"would put tensor-parallel groups across rigs"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, logs)
		}
	}
	for _, never := range []string{"Cluster of 2 rigs", "Starting vllm serve", "variant 1 of"} {
		if strings.Contains(logs, never) {
			t.Errorf("%q: the sweep started before refusing:\n%s", never, logs)
		}
	}
	if left := containersOf(ctx, t, l, e); len(left) != 0 {
		t.Errorf("containers left: %v", left)
	}
}

// freePort is a loopback port free now, for the server's port on the head.
func freePort(t *testing.T) int {
	t.Helper()
	p, err := docker.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
