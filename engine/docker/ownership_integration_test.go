package docker_test

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/simimage"
)

// answers reports whether the server at endpoint still answers /health.
func answers(endpoint string) bool {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(endpoint + "/health")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// A container whose owner runs is not a leftover: another launcher's
// clean-up (a second `rigbench-cli launch`, the app starting) leaves it
// serving. Once its owner is killed, the next clean-up removes it.
func TestCleanupSparesALiveOwnersServer(t *testing.T) {
	owner := exec.Command("sleep", "600")
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Process.Kill(); owner.Wait() })
	o, err := docker.ProcessOwner(owner.Process.Pid)
	if err != nil {
		t.Skipf("this system cannot name processes: %v", err)
	}
	victim, testID := launcher(t, docker.WithOwner(o))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := victim.Start(ctx, simimage.Config("hf_not_a_secret"), nil)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer c.Stop(ctx)

	second, err := docker.New(ctx, docker.WithoutGPU(), docker.WithLabels(map[string]string{docker.LabelManaged: "test-" + testID}))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	n, err := second.CleanupLeftovers(ctx)
	if err != nil || n != 0 {
		t.Fatalf("CleanupLeftovers with the owner alive = %d, %v; want 0", n, err)
	}
	if !answers(c.Endpoint()) {
		t.Fatal("the live owner's server stopped answering after another launcher's clean-up")
	}

	owner.Process.Kill()
	owner.Wait()
	n, err = second.CleanupLeftovers(ctx)
	if err != nil || n != 1 {
		t.Fatalf("CleanupLeftovers once the owner is gone = %d, %v; want 1", n, err)
	}
}

// A second launch on the port a live RigBench's server holds is refused in
// one sentence that says another RigBench uses it, and the first server
// keeps serving.
func TestSecondLaunchOnSamePortIsRefused(t *testing.T) {
	l, _ := launcher(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	port, err := docker.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cfg := simimage.Config("hf_not_a_secret")
	cfg.Port = port
	first, err := l.Start(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("first Start: %v", err)
	}
	defer first.Stop(ctx)

	second, err := l.Start(ctx, cfg, nil)
	if err == nil {
		second.Stop(ctx)
		t.Fatal("a second launch on the same port started")
	}
	var de *docker.Error
	if !errors.As(err, &de) || de.Kind != docker.ErrBusy || !strings.Contains(err.Error(), "another RigBench") ||
		!strings.Contains(err.Error(), "port") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("second Start = %v, want one sentence saying another RigBench uses the port", err)
	}
	if !answers(first.Endpoint()) {
		t.Error("the first server stopped answering")
	}
}
