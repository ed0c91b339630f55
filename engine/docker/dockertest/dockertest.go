// Package dockertest gives tests of every package the same start with the
// real Docker daemon: a launcher, or the test fails where CI=true requires a
// daemon and skips with the reason elsewhere, and RigBench's simulator image
// built once per test binary. It imports "testing" and is meant for tests
// only.
package dockertest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/simimage"
)

var (
	buildOnce sync.Once
	buildErr  error
)

// UniqueLabel is a managed-label value of the test's own, so another
// package's clean-up (or the app's) cannot remove its containers and its
// own leftover checks see only what it started.
func UniqueLabel() docker.Option {
	return docker.WithLabels(map[string]string{docker.LabelManaged: "test-" + uuid.NewString()})
}

// Launcher connects to the daemon with opts and builds the simulator image
// (simimage.DefaultTag) once per test binary. Without a daemon the test
// fails when CI=true and skips otherwise. The launcher is closed when the
// test ends. Under -short (make test-quick) it skips: a container's start
// takes seconds to tens of seconds, building the image longer, and the
// daemon is shared with whatever else runs on the machine.
func Launcher(ctx context.Context, t testing.TB, opts ...docker.Option) *docker.Launcher {
	t.Helper()
	if testing.Short() {
		t.Skip("starts containers in the Docker daemon: skipped with -short (make test runs it)")
	}
	l, err := docker.New(ctx, opts...)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true needs a Docker daemon: %v", err)
		}
		t.Skipf("skipping: no usable Docker daemon here (%v)", err)
	}
	t.Cleanup(func() { l.Close() })
	buildOnce.Do(func() {
		b, ok := l.API().(simimage.Builder)
		if !ok {
			buildErr = errors.New("the Docker API cannot build images")
			return
		}
		buildErr = simimage.Build(ctx, b, simimage.DefaultTag)
	})
	if buildErr != nil {
		t.Fatalf("building the simulator image: %v", buildErr)
	}
	return l
}

// Owner is a process of the test's own (a sleep), named as a container's
// owner (docker.WithOwner), and the function that kills it: the test then
// plays a RigBench that ended without stopping its containers. It skips on
// a system that cannot name processes.
func Owner(t testing.TB) (docker.Owner, func()) {
	t.Helper()
	p := exec.Command("sleep", "600")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	kill := func() { p.Process.Kill(); p.Wait() }
	t.Cleanup(kill)
	o, err := docker.ProcessOwner(p.Process.Pid)
	if err != nil {
		t.Skipf("this system cannot name processes: %v", err)
	}
	return o, kill
}
