//go:build windows

package rig

import "testing"

// Without SSH_AUTH_SOCK the agent asked is Windows' OpenSSH agent's pipe;
// with it, the named one. (Dialling a named pipe is go-winio's; under Wine
// its overlapped pipe I/O hangs, so the dial is not tried here.)
func TestWindowsAgentPipe(t *testing.T) {
	if got := agentSocket(func(string) string { return "" }); got != WindowsAgentPipe {
		t.Errorf("agentSocket without SSH_AUTH_SOCK = %q, want %q", got, WindowsAgentPipe)
	}
	const other = `\\.\pipe\another-agent`
	if got := agentSocket(func(k string) string {
		if k == "SSH_AUTH_SOCK" {
			return other
		}
		return ""
	}); got != other {
		t.Errorf("agentSocket with SSH_AUTH_SOCK = %q, want %q", got, other)
	}
}
