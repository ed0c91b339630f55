//go:build !windows

package rig

import (
	"net"
	"time"
)

// agentSocket is the SSH agent's socket: SSH_AUTH_SOCK, "" when no agent
// runs.
func agentSocket(getenv func(string) string) string { return getenv("SSH_AUTH_SOCK") }

// dialAgent connects to the agent's Unix socket.
func dialAgent(sock string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", sock, timeout)
}
