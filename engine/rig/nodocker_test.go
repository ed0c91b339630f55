package rig

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rig/rigtest"
)

// A rig without Docker (no socket where the daemon listens) is one
// sentence saying so, with the fix, from the first Docker request.
func TestRigWithoutDockerIsOneSentence(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{})
	spec, err := Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), spec, Options{Getenv: s.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.socket = t.TempDir() + "/docker.sock" // nothing listens there
	_, err = c.DialDocker()(context.Background(), "unix", "")
	var re *Error
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "Docker does not answer on the rig at "+c.socket) ||
		!strings.Contains(err.Error(), "install Docker Engine there") {
		t.Fatalf("err = %v", err)
	}
}
