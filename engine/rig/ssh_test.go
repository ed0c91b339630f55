package rig_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
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

func connect(t *testing.T, s *rigtest.Server, addr string) (*rig.Conn, error) {
	t.Helper()
	spec, err := rig.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := rig.Connect(ctx, spec, rig.Options{Getenv: s.Getenv})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func TestUnknownHostKeyIsRefusedWithItsFingerprint(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{Unknown: true})
	_, err := connect(t, s, s.URL())
	var hk *rig.HostKeyError
	if !errors.As(err, &hk) || hk.Changed {
		t.Fatalf("want an unknown host key refused, got %v", err)
	}
	msg := err.Error()
	fp := ssh.FingerprintSHA256(s.HostKey)
	for _, want := range []string{fp, "ssh-ed25519", "not in your known_hosts", "ssh_host_ed25519_key.pub", fmt.Sprintf("ssh-keyscan -p %d 127.0.0.1", s.Port)} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal %q does not say %q", msg, want)
		}
	}
	if strings.Count(msg, ". ") > 0 || strings.Contains(msg, "\n") {
		t.Errorf("the refusal is not one sentence: %q", msg)
	}
}

func TestChangedHostKeyIsRefused(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{})
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ssh.NewPublicKey(pub)
	kh := filepath.Join(s.Home, ".ssh", "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, ssh.MarshalAuthorizedKey(other))
	if err := os.WriteFile(kh, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = connect(t, s, s.URL())
	var hk *rig.HostKeyError
	if !errors.As(err, &hk) || !hk.Changed || hk.Line != 1 {
		t.Fatalf("want a changed host key refused at known_hosts line 1, got %v", err)
	}
	if !strings.Contains(err.Error(), ssh.FingerprintSHA256(s.HostKey)) || !strings.Contains(err.Error(), "ssh-keygen -R") {
		t.Errorf("the refusal says neither the new fingerprint nor how to remove the old key: %v", err)
	}
}

// An alias of ~/.ssh/config (in the test's HOME) names host, port, user
// and key; the connection then carries TCP to the rig's loopback.
func TestConfigAliasReachesTheRigsLoopback(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{})
	cfg := fmt.Sprintf("Host basement\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile ~/.ssh/id_ed25519\n", s.Port, s.User)
	if err := os.WriteFile(filepath.Join(s.Home, ".ssh", "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.WriteString(c, "hello from the rig")
			c.Close()
		}
	}()
	c, err := connect(t, s, "ssh://basement")
	if err != nil {
		t.Fatalf("connecting through the alias: %v", err)
	}
	if !c.Remote() || c.DockerHost() != "unix://"+rig.DockerSocket {
		t.Fatalf("an SSH rig must be remote with the rig's socket, got remote=%v host=%q", c.Remote(), c.DockerHost())
	}
	conn, err := c.Dial()(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dialing through the tunnel: %v", err)
	}
	b, _ := io.ReadAll(conn)
	conn.Close()
	if string(b) != "hello from the rig" {
		t.Fatalf("read %q through the tunnel", b)
	}
	if !strings.Contains(s.Log(), "direct-tcpip") {
		t.Errorf("sshd did not log a forwarded channel:\n%s", s.Log())
	}
	// "~" in a mount means the rig user's home, which only the rig can
	// say: the login's home as the rig sets it (here sshd's SetEnv, a
	// temporary folder), not this process's (temporary) $HOME.
	home, err := c.Home(context.Background())
	if err != nil || home != s.RigHome || home == s.Home {
		t.Errorf("rig home %q (%v), want the rig's %s, not this machine's %s", home, err, s.RigHome, s.Home)
	}
	// Every launch on the connection asks; the rig is asked once.
	sessions := strings.Count(s.Log(), "ctype session")
	if again, err := c.Home(context.Background()); err != nil || again != home || strings.Count(s.Log(), "ctype session") != sessions {
		t.Errorf("asked again: %q (%v), %d sessions opened before, %d after", again, err, sessions, strings.Count(s.Log(), "ctype session"))
	}
	if sessions == 0 {
		t.Errorf("sshd logged no session for the first ask:\n%s", s.Log())
	}
}

func TestDroppedConnectionIsReportedInOneSentence(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{})
	c, err := connect(t, s, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	if c.LostError() != nil {
		t.Fatal("a live connection reports itself lost")
	}
	s.Kill()
	select {
	case <-c.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("killing sshd did not end the connection")
	}
	err = c.LostError()
	if err == nil || !strings.Contains(err.Error(), "SSH connection to "+s.User+"@"+s.Addr()+" dropped") {
		t.Fatalf("lost error %v", err)
	}
	if _, derr := c.Dial()(context.Background(), "tcp", "127.0.0.1:1"); derr == nil || !strings.Contains(derr.Error(), "dropped") {
		t.Fatalf("dialing after the drop: %v", derr)
	}
}

func TestNoKeyNoPrompt(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{})
	os.Remove(filepath.Join(s.Home, ".ssh", "id_ed25519"))
	_, err := connect(t, s, s.URL())
	if err == nil || !strings.Contains(err.Error(), "no SSH key") || !strings.Contains(err.Error(), fmt.Sprintf("ssh-copy-id -p %d %s@127.0.0.1", s.Port, s.User)) {
		t.Fatalf("want a refusal naming the missing key, got %v", err)
	}
}

// writeContext stores a Docker context as the Docker CLI does, under
// DOCKER_CONFIG/contexts/meta/<id>/meta.json.
func writeContext(t *testing.T, dir, name, host string) {
	t.Helper()
	meta := filepath.Join(dir, "contexts", "meta", fmt.Sprintf("%x", name))
	if err := os.MkdirAll(meta, 0o700); err != nil {
		t.Fatal(err)
	}
	doc := fmt.Sprintf(`{"Name":%q,"Metadata":{},"Endpoints":{"docker":{"Host":%q}}}`, name, host)
	if err := os.WriteFile(filepath.Join(meta, "meta.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A Docker context by name: an ssh:// one goes through SSH with the
// user's settings, any other hands its host to the Docker client, and an
// unknown name says how to list them.
func TestDockerContextsByName(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{})
	dir := t.TempDir()
	writeContext(t, dir, "basement", s.URL())
	writeContext(t, dir, "tcpbox", "tcp://10.0.0.9:2375")
	getenv := func(k string) string {
		if k == "DOCKER_CONFIG" {
			return dir
		}
		return s.Getenv(k)
	}
	ctx := context.Background()
	c, err := rig.Connect(ctx, rig.Spec{Kind: rig.Context, Name: "basement"}, rig.Options{Getenv: getenv})
	if err != nil {
		t.Fatalf("the ssh context: %v", err)
	}
	defer c.Close()
	if !c.Remote() || c.Spec().Name != "basement" {
		t.Errorf("the ssh context is not remote: %+v", c.Spec())
	}
	c2, err := rig.Connect(ctx, rig.Spec{Kind: rig.Context, Name: "tcpbox"}, rig.Options{Getenv: getenv})
	if err != nil || c2.Remote() || c2.DockerHost() != "tcp://10.0.0.9:2375" {
		t.Errorf("the tcp context: %v, host %q", err, c2.DockerHost())
	}
	if _, err := rig.Connect(ctx, rig.Spec{Kind: rig.Context, Name: "nope"}, rig.Options{Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "rigbench-cli rigs") {
		t.Errorf("an unknown context: %v", err)
	}
	list, err := rig.Contexts(rig.Options{Getenv: getenv})
	if err != nil || len(list) != 3 || list[0].Name != "default" || list[1].Name != "basement" || list[2].Name != "tcpbox" {
		t.Errorf("contexts %+v, %v", list, err)
	}
}

// The user's agent (SSH_AUTH_SOCK) signs when no key file is readable; a
// passphrase-protected key file is not asked about but named with the fix.
func TestAgentKeysAndPassphraseProtectedFiles(t *testing.T) {
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
	locked, err := ssh.MarshalPrivateKeyWithPassphrase(raw, "", []byte("secret passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(locked), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = connect(t, s, s.URL())
	if err == nil || !strings.Contains(err.Error(), "passphrase-protected") || !strings.Contains(err.Error(), "ssh-add "+keyFile) {
		t.Fatalf("a locked key without an agent: %v", err)
	}

	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(keyring, c); c.Close() }()
		}
	}()
	spec, _ := rig.Parse(s.URL())
	getenv := func(k string) string {
		if k == "SSH_AUTH_SOCK" {
			return sock
		}
		return s.Getenv(k)
	}
	c, err := rig.Connect(context.Background(), spec, rig.Options{Getenv: getenv})
	if err != nil {
		t.Fatalf("connecting with the agent's key: %v", err)
	}
	c.Close()
}

// OverSSH tells a front end, before any connection, whether the rig is
// another machine reached through SSH: an ssh:// address, or a Docker
// context whose endpoint is one; this machine's daemon, a context on a
// socket or tcp://, and a context nobody made are not.
func TestOverSSH(t *testing.T) {
	dir := t.TempDir()
	writeContext(t, dir, "basement", "ssh://me@basement")
	writeContext(t, dir, "sock", "unix:///var/run/docker.sock")
	writeContext(t, dir, "tcpbox", "tcp://10.0.0.5:2375")
	o := rig.Options{Getenv: func(k string) string {
		if k == "DOCKER_CONFIG" {
			return dir
		}
		return ""
	}}
	for _, c := range []struct {
		rig  string
		want bool
	}{
		{"", false}, {"local", false}, {"ssh://me@box", true}, {"ssh://box:2222", true},
		{"basement", true}, {"sock", false}, {"tcpbox", false}, {"nobody", false},
	} {
		s, err := rig.Parse(c.rig)
		if err != nil {
			t.Fatalf("%q: %v", c.rig, err)
		}
		if got := s.OverSSH(o); got != c.want {
			t.Errorf("%q: OverSSH %v, want %v", c.rig, got, c.want)
		}
	}
}

// Issue 41 (what LM Studio users expect): an unknown host key can be
// trusted from RigBench after its fingerprint was shown: Trust adds it to
// the user's known_hosts and the next connection gets through; a changed
// key is never replaced from RigBench.
func TestTrustAnUnknownHostKey(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{Unknown: true})
	_, err := connect(t, s, s.URL())
	var hk *rig.HostKeyError
	if !errors.As(err, &hk) || !hk.CanTrust() {
		t.Fatalf("an unknown key that cannot be trusted: %v", err)
	}
	if err := hk.Trust(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(s.Home, ".ssh", "known_hosts"))
	if err != nil || !strings.Contains(string(b), fmt.Sprintf("[127.0.0.1]:%d ssh-ed25519 ", s.Port)) {
		t.Fatalf("known_hosts after Trust: %q, %v", b, err)
	}
	if _, err := connect(t, s, s.URL()); err != nil {
		t.Fatalf("after trusting the key: %v", err)
	}

	changed := rigtest.Start(t, rigtest.Options{})
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ssh.NewPublicKey(pub)
	kh := filepath.Join(changed.Home, ".ssh", "known_hosts")
	if err := os.WriteFile(kh, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", changed.Port, ssh.MarshalAuthorizedKey(other))), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = connect(t, changed, changed.URL())
	if !errors.As(err, &hk) || !hk.Changed || hk.CanTrust() || hk.Trust() == nil {
		t.Fatalf("a changed key can be trusted from RigBench: %v", err)
	}
	if after, _ := os.ReadFile(kh); strings.Count(string(after), "\n") != 1 {
		t.Errorf("known_hosts of the changed key was written: %q", after)
	}
}
