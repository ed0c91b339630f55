package rig_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rig/rigtest"
)

// stuckSigning is an agent that lists its keys but never signs, as one
// waiting for a PIN or a confirmation nobody gives.
type stuckSigning struct {
	agent.Agent
	release chan struct{}
}

func (a stuckSigning) Sign(key ssh.PublicKey, data []byte) (*ssh.Signature, error) {
	<-a.release
	return nil, os.ErrDeadlineExceeded
}

func (a stuckSigning) SignWithFlags(key ssh.PublicKey, data []byte, _ agent.SignatureFlags) (*ssh.Signature, error) {
	return a.Sign(key, data)
}

// serveAgent serves a on a unix socket (nil a: accept and answer
// nothing) and returns its path.
func serveAgent(t *testing.T, a agent.Agent) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if a == nil {
					<-done // a hung agent: reads nothing, says nothing
					return
				}
				agent.ServeAgent(a, c)
			}()
		}
	}()
	return sock
}

// TestHungAgent: an SSH agent that never answers hung every `--rig
// ssh://…` command with no output (issue 36 item 6); the connect limit did
// not cover it. Each exchange with the agent is bounded: one that does not
// list its keys, or does not sign, is named in the sentence, and the key
// files are tried next.
func TestHungAgent(t *testing.T) {
	old := rig.AgentTimeout
	rig.AgentTimeout = 300 * time.Millisecond
	t.Cleanup(func() { rig.AgentTimeout = old })

	s := rigtest.Start(t, rigtest.Options{})
	keyFile := filepath.Join(s.Home, ".ssh", "id_ed25519")
	pemBytes, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ssh.ParseRawPrivateKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	silent := serveAgent(t, nil)
	noSign := serveAgent(t, stuckSigning{Agent: keyring, release: release})
	spec, _ := rig.Parse(s.URL())
	connect := func(sock string) (time.Duration, error) {
		getenv := func(k string) string {
			if k == "SSH_AUTH_SOCK" {
				return sock
			}
			return s.Getenv(k)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		c, err := rig.Connect(ctx, spec, rig.Options{Getenv: getenv})
		if err == nil {
			c.Close()
		}
		return time.Since(start), err
	}
	// With the key file beside it, both agents fall through to the file.
	for name, sock := range map[string]string{"silent agent": silent, "agent that does not sign": noSign} {
		if took, err := connect(sock); err != nil || took > rig.DialTimeout {
			t.Errorf("%s with a key file: %v after %v, want connected through the file", name, err, took)
		}
	}
	// Without the file, the sentence names the step that hung.
	if err := os.Rename(keyFile, keyFile+".away"); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ sock, step string }{
		"silent agent":             {silent, "did not list its keys within 300ms"},
		"agent that does not sign": {noSign, "did not sign within 300ms"},
	} {
		took, err := connect(c.sock)
		if err == nil || !strings.Contains(err.Error(), c.step) || !strings.Contains(err.Error(), c.sock) {
			t.Errorf("%s without a key file: %v, want a sentence saying it %s", name, err, c.step)
		}
		if took > rig.DialTimeout {
			t.Errorf("%s: gave up after %v", name, took)
		}
	}
}

// TestHintsPasteAsPrinted: the hint commands pasted the user's text
// unquoted (`ssh-copy-id -p 19160 -oProxyCommand=id@127.0.0.1`), so a user
// or host could be read as an option or expanded by the shell (issue 36
// item 10). A user or host that starts with '-' is refused; any other text
// is shell-quoted in the command to paste.
func TestHintsPasteAsPrinted(t *testing.T) {
	for _, addr := range []string{"ssh://-oProxyCommand=id@127.0.0.1:19160", "ssh://root@-oProxyCommand=id"} {
		if _, err := rig.Parse(addr); err == nil || !strings.Contains(err.Error(), "read as an option") {
			t.Errorf("Parse(%s) = %v, want a refusal", addr, err)
		}
	}
	s := rigtest.Start(t, rigtest.Options{})
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519"))
	spec, err := rig.Parse(fmt.Sprintf("ssh://r$HOME@127.0.0.1:%d", s.Port))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rig.Connect(context.Background(), spec, rig.Options{Getenv: s.Getenv})
	if want := fmt.Sprintf("ssh-copy-id -p %d 'r$HOME@127.0.0.1'", s.Port); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want the hint %s", err, want)
	}
}
