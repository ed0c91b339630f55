package docker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Issue 16 item 4: a failed pull says in one sentence that the image could
// not be downloaded, why, and the fix, not the daemon's raw words.
func TestPullErrorSaysWhyAndFix(t *testing.T) {
	const ref = "vllm/vllm-openai:latest"
	for _, tc := range []struct {
		daemon   string
		why, fix string
	}{
		{`Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on 127.0.0.53:53: no such host`,
			"cannot reach Docker Hub", "network"},
		{`Error response from daemon: Get "https://registry-1.docker.io/v2/": net/http: TLS handshake timeout`, "cannot reach", "proxy"},
		{`Error response from daemon: manifest for vllm/vllm-openai:v9.9.9 not found: manifest unknown: manifest unknown`,
			"has no image of that name and tag", "check the image name and tag"},
		{`Error response from daemon: pull access denied for vllm/vllm-openia, repository does not exist or may require 'docker login'`,
			"has no image of that name", "check the image name"},
		{`Error response from daemon: Head "https://ghcr.io/v2/org/private/manifests/latest": unauthorized`, "wants a login", "docker login"},
		{`something new the daemon says`, "something new", "docker pull " + ref},
	} {
		err := pullError(ref, errors.New(tc.daemon))
		var de *Error
		if !errors.As(err, &de) || de.Kind != ErrPull {
			t.Fatalf("%q: %T %v, want a pull *Error", tc.daemon, err, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "could not be downloaded") || !strings.Contains(msg, tc.why) || !strings.Contains(msg, tc.fix) {
			t.Errorf("%q\n  became %q\n  want %q and %q", tc.daemon, msg, tc.why, tc.fix)
		}
		if tc.why != "something new" && strings.Contains(msg, "Error response from daemon") {
			t.Errorf("the daemon's raw words are in %q", msg)
		}
		if !errors.Is(err, de.Err) {
			t.Error("the daemon's error is not kept for details")
		}
	}
	if got := registryOf("ghcr.io/org/img:1"); got != "ghcr.io" {
		t.Errorf("registry of ghcr.io/org/img:1 = %q", got)
	}
	if got := registryOf("localhost:5000/img"); got != "localhost:5000" {
		t.Errorf("registry of localhost:5000/img = %q", got)
	}
}

// With the real daemon: a registry that does not answer gives the
// no-network sentence (the machine the issue was found on had no registry
// at all; 127.0.0.1:1 refuses at once, without a DNS wait).
func TestPullFromUnreachableRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := New(ctx, WithoutGPU())
	if err != nil {
		t.Skipf("no Docker daemon: %v", err)
	}
	defer l.Close()
	const ref = "127.0.0.1:1/rigbench/none:latest"
	err = l.EnsureImage(ctx, ref, nil)
	if err == nil {
		t.Fatal("pulling from a closed port succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "could not be downloaded because this computer cannot reach 127.0.0.1:1") {
		t.Errorf("pull error %q, want the no-network sentence naming the registry", msg)
	}
}
