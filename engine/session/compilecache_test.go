package session

import (
	"testing"

	"github.com/rigbench/rigbench/engine/rig"
)

// The default compile cache is this machine's folder for this machine's
// daemon, and the rig user's RigBench folder on an SSH rig: this
// machine's path names nothing on the rig's disk. A rig name that does
// not parse keeps this machine's (the launch refuses the name itself).
func TestDefaultCompileCache(t *testing.T) {
	const here = "/home/me/.local/share/rigbench/compile-cache"
	// DOCKER_CONFIG points at an empty folder, so no context of the real
	// user's is read.
	dockerConfig := t.TempDir()
	o := rig.Options{Getenv: func(k string) string {
		if k == "DOCKER_CONFIG" {
			return dockerConfig
		}
		return ""
	}}
	for _, c := range []struct{ rig, want string }{
		{"", here}, {"local", here}, {"ssh://me@box", RigCompileCache}, {"ssh://box:2", RigCompileCache},
		{"no such context", here}, {"nocontext", here},
	} {
		if got := DefaultCompileCache(c.rig, o, here); got != c.want {
			t.Errorf("%q: %q, want %q", c.rig, got, c.want)
		}
	}
	if got := DefaultCompileCache("ssh://me@box", o, ""); got != RigCompileCache {
		t.Errorf("without a home here, an SSH rig still gets %q: %q", RigCompileCache, got)
	}
}
