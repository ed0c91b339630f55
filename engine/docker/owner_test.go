package docker

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/rigbench/rigbench/engine/vllm"
)

func TestParseStatStart(t *testing.T) {
	t.Parallel()
	// A command name with spaces and a ')' must not shift the fields.
	line := "4242 (evil) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615"
	got, err := parseStatStart(line)
	if err != nil || got != 987654 {
		t.Fatalf("parseStatStart = %d, %v; want 987654", got, err)
	}
	for _, bad := range []string{"", "1 (x) S 1", "no parens at all"} {
		if _, err := parseStatStart(bad); err == nil {
			t.Errorf("parseStatStart(%q) succeeded", bad)
		}
	}
}

// This process is alive; a child is alive until it is killed and reaped,
// then gone; an owner with another start time (a reused id) is gone; one on
// another host cannot be judged.
func TestOwnerState(t *testing.T) {
	t.Parallel()
	me, err := Self()
	if err != nil {
		t.Skipf("this system cannot name processes: %v", err)
	}
	if s := me.State(); s != OwnerAlive {
		t.Errorf("Self().State() = %v", s)
	}
	if o, ok := ParseOwner(me.String()); !ok || o != me {
		t.Errorf("ParseOwner(%q) = %+v, %v", me.String(), o, ok)
	}
	child, stdin := holdingChild(t)
	o, err := ProcessOwner(child.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if s := o.State(); s != OwnerAlive {
		t.Errorf("live child: %v", s)
	}
	reused := o
	reused.Start++
	if s := reused.State(); s != OwnerGone {
		t.Errorf("same id, other start time: %v, want gone", s)
	}
	stdin.Close() // the child exits
	child.Wait()
	if s := o.State(); s != OwnerGone {
		t.Errorf("killed child: %v, want gone", s)
	}
	far := me
	far.Host = "another-machine"
	if s := far.State(); s != OwnerUnknown {
		t.Errorf("other host: %v, want unknown", s)
	}
	rebooted := me
	rebooted.Boot = "00000000-0000-0000-0000-000000000000"
	if s := rebooted.State(); s != OwnerGone {
		t.Errorf("earlier boot: %v, want gone", s)
	}
}

// holdEnv makes a copy of this test binary wait in TestHoldStdin until its
// standard input closes: a child process that lives exactly as long as a
// test wants, on every platform (Windows has no sleep(1)).
const holdEnv = "RIGBENCH_DOCKER_TEST_HOLD"

func TestHoldStdin(t *testing.T) {
	if os.Getenv(holdEnv) != "1" {
		t.Skip("a helper: TestOwnerState runs it as a child process")
	}
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// holdingChild starts that child; closing stdin ends it.
func holdingChild(t *testing.T) (*exec.Cmd, io.Closer) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestHoldStdin$")
	child.Env = append(os.Environ(), holdEnv+"=1")
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); child.Wait() })
	return child, stdin
}

func TestGPUsOverlap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want bool
		says string
	}{
		{"", "all", false, ""},
		{"all", "", false, ""},
		{"all", "1", true, "GPU 1"},
		{"0", "all", true, "GPU 0"},
		{"0,1", "1,2", true, "GPU 1"},
		{"0,1", "0,1", true, "GPUs 0,1"},
		{"0", "1", false, ""},
		{"count=1", "3", true, "GPU 3"},
		{"all", "all", true, "the GPUs"},
	}
	for _, c := range cases {
		if got := gpusOverlap(c.a, c.b); got != c.want {
			t.Errorf("gpusOverlap(%q, %q) = %v", c.a, c.b, got)
		}
		if c.want {
			if got := gpuWords(c.a, c.b); got != c.says {
				t.Errorf("gpuWords(%q, %q) = %q, want %q", c.a, c.b, got, c.says)
			}
		}
	}
}

// A launch on a GPU that a live RigBench's running container holds is
// refused before anything is created, in one sentence naming the holder;
// one on another GPU goes ahead to the image check.
func TestStartRefusesBusyGPU(t *testing.T) {
	t.Parallel()
	me, err := Self()
	if err != nil {
		t.Skipf("this system cannot name processes: %v", err)
	}
	fake := &fakeAPI{list: []container.Summary{{ID: "abc", Names: []string{"/rigbench-1234"}, State: container.StateRunning,
		Labels: map[string]string{LabelManaged: "true", LabelOwner: me.String(), LabelGPUs: "0", LabelPort: "8100"}}},
		inspectErr: errors.New("no such image")}
	l, err := New(context.Background(), WithAPI(fake))
	if err != nil {
		t.Fatal(err)
	}
	cfg := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "m", GPUs: "0,1"}
	_, err = l.Start(context.Background(), cfg, nil)
	var de *Error
	if !errors.As(err, &de) || de.Kind != ErrBusy {
		t.Fatalf("Start = %v, want a busy error", err)
	}
	msg := err.Error()
	for _, want := range []string{"another RigBench", "GPU 0", "rigbench-1234"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Count(msg, ". ") > 0 || len(fake.created) != 0 {
		t.Errorf("want one sentence and nothing created: %q, %d created", msg, len(fake.created))
	}
	cfg.GPUs = "1"
	if _, err := l.Start(context.Background(), cfg, nil); errors.As(err, &de) && de.Kind == ErrBusy {
		t.Errorf("GPU 1 is free, yet: %v", err)
	}
	cfg.GPUs, cfg.Port = "1", 8100
	if _, err := l.Start(context.Background(), cfg, nil); !errors.As(err, &de) || de.Kind != ErrBusy || !strings.Contains(err.Error(), "port 8100") {
		t.Errorf("same port: %v, want a busy error naming port 8100", err)
	}
}

// Leftover: a container whose owner is gone, or with no owner that no
// longer runs; never one whose owner lives or cannot be judged.
func TestManagedLeftover(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    Managed
		want bool
	}{
		{Managed{OwnerOK: true, State: OwnerGone, Summary: container.Summary{State: container.StateRunning}}, true},
		{Managed{OwnerOK: true, State: OwnerAlive, Summary: container.Summary{State: container.StateExited}}, false},
		{Managed{OwnerOK: true, State: OwnerUnknown, Summary: container.Summary{State: container.StateExited}}, false},
		{Managed{Summary: container.Summary{State: container.StateRunning}}, false},
		{Managed{Summary: container.Summary{State: container.StateExited}}, true},
	}
	for i, c := range cases {
		if got := c.m.Leftover(); got != c.want {
			t.Errorf("case %d: Leftover() = %v", i, got)
		}
	}
}
