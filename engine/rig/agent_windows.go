//go:build windows

package rig

import (
	"net"
	"strings"
	"time"

	"github.com/Microsoft/go-winio"
)

// WindowsAgentPipe is the named pipe of Windows' own OpenSSH agent (the
// "OpenSSH Authentication Agent" service, which `ssh-add` on Windows talks
// to); it needs no SSH_AUTH_SOCK.
const WindowsAgentPipe = `\\.\pipe\openssh-ssh-agent`

// agentSocket is the SSH agent to ask: SSH_AUTH_SOCK when set (another
// agent's pipe, or a Unix socket, which Windows 10 and later also have),
// else Windows' OpenSSH agent. When that service is stopped its pipe does
// not exist and the keys come from the identity files alone.
func agentSocket(getenv func(string) string) string {
	if s := getenv("SSH_AUTH_SOCK"); s != "" {
		return s
	}
	return WindowsAgentPipe
}

// dialAgent connects to a named pipe (\\.\pipe\…) or a Unix socket.
func dialAgent(sock string, timeout time.Duration) (net.Conn, error) {
	if strings.HasPrefix(sock, `\\.\pipe\`) {
		return winio.DialPipe(sock, &timeout)
	}
	return net.DialTimeout("unix", sock, timeout)
}
