//go:build !race

package ui

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rig/rigtest"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/target"
)

// twoRigApp is the app over two loopback rigs (sshd at 127.0.0.1 and
// 127.0.0.2, one HOME) reaching this machine's daemon without GPUs, its
// containers labelled for this test alone, and a launcher that sees them.
func twoRigApp(ctx context.Context, t *testing.T) (*UI, *docker.Launcher, *rigtest.Server, *rigtest.Server) {
	t.Helper()
	label := dockertest.UniqueLabel()
	l := dockertest.Launcher(ctx, t, docker.WithoutGPU(), label)
	s1 := rigtest.Start(t, rigtest.Options{})
	s2 := rigtest.Start(t, rigtest.Options{Share: s1})
	u, _ := rigApp(t, s1, docker.WithoutGPU(), label, docker.WithPollInterval(100*time.Millisecond))
	return u, l, s1, s2
}

// The Launch view starts the stand-in cluster on two loopback rigs through
// the one cluster launcher (Services.LaunchCluster, session.TargetInput's
// Cluster as the CLI fills it): ready with the split and the measured link
// in its banner, and Stop leaves no container on either rig.
func TestLaunchViewStartsAndStopsACluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	u, l, s1, s2 := twoRigApp(ctx, t)
	ports := make([]int, 0, 2)
	for range 2 {
		p, err := docker.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, p)
	}
	img, tag, _ := strings.Cut(simimage.ClusterTag, ":")
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		u.Launch.Form.SetConfig(vllm.LaunchConfig{Image: img, Tag: tag, Model: vllm.ModelTiny, Port: ports[0],
			Extra: []string{"--profile", "tiny", "--speed", "10"}})
		u.Launch.SetClusterRigs([]string{"local", s1.URL(), s2.URL()})
		u.Launch.SetClusterMode(true)
		u.Launch.Cluster().Tick(s1.URL(), s2.URL())
		u.Launch.SetClusterLink("lo", "127.0.0.1,127.0.0.2")
		if split, _, problem, lines := u.Launch.ClusterPlan(); problem != "" || !strings.HasPrefix(split, "TP 1 × PP 2") || strings.Count(lines, "docker run") != 2 {
			t.Fatalf("plan %q, problem %q, lines %q", split, problem, lines)
		}
		u.Launch.Start()
	})
	var ready, failure string
	for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		fyne.DoAndWait(func() {
			failure, _ = u.Launch.Failure()
			if srv := u.Launch.Server(); srv != nil {
				ready = u.Launch.ReadyText()
			}
		})
		if ready != "" || failure != "" {
			break
		}
	}
	if ready == "" {
		t.Fatalf("the cluster did not start: %q", failure)
	}
	for _, want := range []string{"Cluster: 2 rigs, TP 1 × PP 2 over lo at ", " Gb/s, ", " µs."} {
		if !strings.Contains(ready, want) {
			t.Errorf("ready banner %q lacks %q", ready, want)
		}
	}
	shootTab(t, u, TabLaunch, "launch-cluster-ready")
	if n := countManaged(ctx, t, l); n != 2 {
		t.Errorf("%d containers of the test run, want the head and the worker", n)
	}
	fyne.DoAndWait(u.Launch.Stop)
	for end := time.Now().Add(time.Minute); countManaged(ctx, t, l) > 0 && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
	}
	if n := countManaged(ctx, t, l); n != 0 {
		t.Errorf("%d containers left after Stop", n)
	}
}

// countManaged is how many containers of the test (its label) exist.
func countManaged(ctx context.Context, t *testing.T, l *docker.Launcher) int {
	t.Helper()
	m, err := l.Managed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// shootTab saves the tab at 1280×800 and 900×600 under
// RIGBENCH_TEST_SHOTS, for a person to look at (docs/app.md shows them).
func shootTab(t *testing.T, u *UI, tab, name string) {
	dir := os.Getenv("RIGBENCH_TEST_SHOTS")
	if dir == "" {
		return
	}
	for _, size := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 900, Height: 600}} {
		var img image.Image
		fyne.DoAndWait(func() {
			for _, it := range u.Tabs().Items {
				if it.Text == tab {
					u.Tabs().Select(it)
				}
			}
			u.win.Resize(size)
			u.win.Content().Refresh()
		})
		fyne.DoAndWait(func() { img = u.win.Canvas().Capture() })
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%.0fx%.0f.png", name, size.Width, size.Height)))
		if err != nil {
			t.Fatal(err)
		}
		png.Encode(f, img)
		f.Close()
	}
}

// The cluster's plan before Start takes each rig's GPUs as the app read
// them (this computer's detection, an added rig's): with two mock GPUs on
// each of two rigs it shows TP 2 × PP 2, as Start plans it. A rig not read
// yet is taken to have one GPU, which the plan says, until its detection.
func TestClusterPlanTakesEachRigsGPUs(t *testing.T) {
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	two := hardware.Snapshot{GPUs: []hardware.GPU{{Index: 0, Name: "Mock GPU"}, {Index: 1, Name: "Mock GPU"}}}
	ready := hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true}
	svc := Services{
		Detect:     func(context.Context) hardware.Snapshot { return two },
		Docker:     func(context.Context) hwview.Docker { return ready },
		Session:    session.Run,
		ConnectRig: func(context.Context, string) (*rig.Conn, error) { return nil, nil }, // DetectRig below reads nothing through it
		DetectRig: func(context.Context, *rig.Conn, []string) (hardware.Snapshot, hwview.Docker) {
			return two, ready
		},
	}
	u, detected := newRigUI(t, svc)

	const other = "ssh://127.0.0.2"
	var split, problem, lines string
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		u.Launch.SetClusterRigs([]string{rig.LocalName, other})
		u.Launch.SetClusterMode(true)
		u.Launch.Cluster().Tick(rig.LocalName, other)
		split, _, problem, _ = u.Launch.ClusterPlan()
	})
	if problem != "" || !strings.HasPrefix(split, "TP 1 × PP 2") || !strings.Contains(split, "GPUs not read yet on "+other+": assumed 1") {
		t.Errorf("before %s is read: plan %q, problem %q; want TP 1 × PP 2 saying its GPUs were assumed", other, split, problem)
	}
	addRig(t, u, detected, other)
	fyne.DoAndWait(func() { split, _, problem, lines = u.Launch.ClusterPlan() })
	if problem != "" || !strings.HasPrefix(split, "TP 2 × PP 2 over 2 rigs") || strings.Contains(split, "not read yet") {
		t.Errorf("with both rigs read: plan %q, problem %q; want TP 2 × PP 2 and nothing assumed", split, problem)
	}
	if !strings.Contains(lines, "--tensor-parallel-size 2 --pipeline-parallel-size 2") {
		t.Errorf("lines %q, want vllm serve with TP 2 × PP 2", lines)
	}
	shootTab(t, u, TabLaunch, "launch-cluster-gpus")
}
