package launchview_test

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
)

// Ticking two rigs shows the plan in the previews' place: TP × PP with its
// reason and why the other splits are not proposed, a `docker run` per rig
// (the head's starting Ray's head, the worker's joining it at the head's
// address) and the `vllm serve` line with the split and Ray's backend —
// the lines session.ClusterInput.Preview gives the CLI's input.
func TestClusterPlanShowsEveryLine(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	v := launchview.New(a, w, target.NewChooser(target.Launch), nil)
	w.SetContent(v.Content())
	v.Form.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	v.SetClusterRigs([]string{"local", "ssh://me@10.0.0.2", "gpu-box"})
	v.SetClusterMode(true)
	if _, _, problem, _ := v.ClusterPlan(); !strings.Contains(problem, "Tick two rigs") {
		t.Errorf("no rig ticked: problem %q, want the user told to tick two", problem)
	}
	if got := v.Form.ServePreview(); got == "" {
		t.Fatal("the single launch's preview is empty")
	}
	v.Cluster().Tick("ssh://me@10.0.0.2", "local")
	v.SetClusterLink("eth0", "")
	split, others, problem, lines := v.ClusterPlan()
	if problem != "" {
		t.Fatalf("plan refused: %q", problem)
	}
	if !strings.HasPrefix(split, "TP 1 × PP 2 over 2 rigs: ") || !strings.Contains(split, "only one hand-off a step crosses the network") {
		t.Errorf("split %q, want TP 1 × PP 2 with its reason", split)
	}
	if !strings.Contains(others, "TP 2 × PP 1: refused: its tensor-parallel groups span rigs") {
		t.Errorf("others %q, want TP 2 × PP 1 refused with why", others)
	}
	got := strings.Split(lines, "\n")
	if len(got) != 3 {
		t.Fatalf("lines %q, want two docker run and one serve", got)
	}
	if !strings.Contains(got[0], "--head") || !strings.Contains(got[0], "VLLM_HOST_IP=10.0.0.2") || !strings.Contains(got[0], "NCCL_SOCKET_IFNAME=eth0") {
		t.Errorf("head line %q, want ray's head on the first ticked rig's address with the interface", got[0])
	}
	if !strings.Contains(got[1], "--address=10.0.0.2:6379") || !strings.Contains(got[1], "VLLM_HOST_IP=127.0.0.1") {
		t.Errorf("worker line %q, want it joining the head at 10.0.0.2:6379 from 127.0.0.1", got[1])
	}
	for _, want := range []string{"vllm serve", "--tensor-parallel-size 1", "--pipeline-parallel-size 2", "--distributed-executor-backend ray"} {
		if !strings.Contains(got[2], want) {
			t.Errorf("serve line %q lacks %q", got[2], want)
		}
	}
	plan, _, err := session.ClusterInput{Rigs: "head=ssh://me@10.0.0.2,local", Interface: "eth0"}.Preview(context.Background(), v.Form.Config(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(append(plan.DockerCommands(), plan.ServeLine()), "\n"); lines != want {
		t.Errorf("view's lines\n%s\nare not the CLI input's\n%s", lines, want)
	}
	v.Cluster().SetHead("local")
	if _, _, _, lines := v.ClusterPlan(); !strings.Contains(strings.Split(lines, "\n")[0], "VLLM_HOST_IP=127.0.0.1") {
		t.Errorf("after choosing local as head, its first line %q is not local's", strings.Split(lines, "\n")[0])
	}
	shoot(t, w, "launch-cluster")
}

// shoot saves the window at 1280×800 and 900×600 under
// RIGBENCH_TEST_SHOTS, for a person to look at (docs/app.md shows them).
func shoot(t *testing.T, w fyne.Window, name string) {
	dir := os.Getenv("RIGBENCH_TEST_SHOTS")
	if dir == "" {
		return
	}
	for _, size := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 900, Height: 600}} {
		w.Resize(size)
		w.Content().Refresh()
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%.0fx%.0f.png", name, size.Width, size.Height)))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, w.Canvas().Capture()); err != nil {
			t.Error(err)
		}
		f.Close()
	}
}

// A cluster that cannot be planned says why in one sentence, in the app's
// names of its inputs, and Start refuses with that sentence without
// launching anything.
func TestClusterRefusalsAreOneSentence(t *testing.T) {
	launched := 0
	v := newView(t)
	v.SetClusterLaunch(func(context.Context, vllm.LaunchConfig, session.ClusterInput, launchview.Progress) (*session.Server, error) {
		launched++
		return nil, nil
	})
	v.Form.SetModel("m")
	v.SetClusterRigs([]string{"local", "ssh://me@127.0.0.1"})
	v.SetClusterMode(true)
	v.Start()
	if text, _ := v.Failure(); !strings.Contains(text, "Tick two rigs or more") {
		t.Errorf("Start with no rig ticked says %q", text)
	}
	v.Cluster().Tick("local", "ssh://me@127.0.0.1")
	if _, _, problem, _ := v.ClusterPlan(); !strings.Contains(problem, "share the address 127.0.0.1") || !strings.Contains(problem, "give each its own address") {
		t.Errorf("two rigs on one address: %q", problem)
	}
	v.SetClusterLink("not an interface", "")
	_, _, problem, _ := v.ClusterPlan()
	if !strings.HasPrefix(problem, "The cluster's interface must be a network interface's name") {
		t.Errorf("bad interface: %q", problem)
	}
	v.Start()
	if text, _ := v.Failure(); text != problem {
		t.Errorf("Start says %q, want the plan's sentence %q", text, problem)
	}
	v.SetClusterLink("lo", "127.0.0.1,10.0.0.9")
	if _, _, problem, _ := v.ClusterPlan(); problem != "" {
		t.Errorf("with the nodes' addresses given: %q", problem)
	}
	if launched != 0 {
		t.Errorf("a refused cluster launched %d times", launched)
	}
}
