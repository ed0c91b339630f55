// Package rigtest starts Debian's sshd (openssh-server) on a loopback port
// with a throw-away host key, and makes a temporary HOME whose ~/.ssh holds
// a user key and a known_hosts that trusts that host key, so tests reach
// the local Docker daemon through SSH as a "remote" rig without touching
// the real user's files. Without sshd the test fails when CI=true and
// skips elsewhere. It imports "testing" and is meant for tests only.
package rigtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// SSHDPath is where Debian's openssh-server installs sshd.
const SSHDPath = "/usr/sbin/sshd"

// Server is a running sshd and the HOME that reaches it.
type Server struct {
	// Port is sshd's port on 127.0.0.1.
	Port int
	// User is the account to log in as (the test's own: sshd run by a
	// non-root user can only log that user in).
	User string
	// Home is the temporary HOME: .ssh/config is empty, .ssh/id_ed25519
	// is the user key, .ssh/known_hosts trusts the host key (unless
	// Unknown was asked for).
	Home string
	// RigHome is the home the rig's sessions get (sshd's SetEnv), a
	// temporary folder apart from Home: what RigBench places in "~" on
	// the rig (the compile cache, a Hugging Face cache) lands there, not
	// in the real account's home, and a test tells the two machines'
	// homes apart.
	RigHome string
	// HostKey is the host's public key.
	HostKey ssh.PublicKey

	cmd  *exec.Cmd
	log  *syncBuffer
	once sync.Once
}

// Options change the set-up.
type Options struct {
	// Unknown leaves the host key out of known_hosts.
	Unknown bool
	// NoHome gives the rig's sessions an empty HOME: a rig that cannot
	// say its home folder.
	NoHome bool
	// Share makes the new sshd reachable from that server's HOME (its user
	// key, its known_hosts), so one RigBench environment reaches both: a
	// cluster of two loopback rigs.
	Share *Server
}

// Start runs sshd for the test and stops it when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if _, err := os.Stat(SSHDPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true needs sshd (Debian's openssh-server, installed by scripts/deps.sh test): %v", err)
		}
		t.Skipf("skipping: no sshd here (%v); install openssh-server to run the SSH rig tests", err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if me.Uid == "0" {
		// Debian's sshd refuses to start without its privilege
		// separation folder, which a container may lack.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	sshDir := filepath.Join(home, ".ssh")
	must(t, os.MkdirAll(sshDir, 0o700))
	rigHome := filepath.Join(dir, "rig-home")
	must(t, os.MkdirAll(rigHome, 0o755))
	sessionHome := rigHome
	if o.NoHome {
		sessionHome = ""
	}

	hostPub, hostPEM := newKey(t)
	userPub, userPEM := newKey(t)
	hostKey := filepath.Join(dir, "host_ed25519")
	must(t, os.WriteFile(hostKey, hostPEM, 0o600))
	if o.Share != nil {
		home, sshDir = o.Share.Home, filepath.Join(o.Share.Home, ".ssh")
		pem, err := os.ReadFile(filepath.Join(sshDir, "id_ed25519"))
		must(t, err)
		signer, err := ssh.ParsePrivateKey(pem)
		must(t, err)
		userPub = signer.PublicKey()
	} else {
		must(t, os.WriteFile(filepath.Join(sshDir, "id_ed25519"), userPEM, 0o600))
	}
	auth := filepath.Join(dir, "authorized_keys")
	must(t, os.WriteFile(auth, ssh.MarshalAuthorizedKey(userPub), 0o600))
	port := freePort(t)
	if !o.Unknown {
		line := fmt.Sprintf("[127.0.0.1]:%d %s", port, ssh.MarshalAuthorizedKey(hostPub))
		f, err := os.OpenFile(filepath.Join(sshDir, "known_hosts"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		must(t, err)
		_, err = f.WriteString(line)
		must(t, errors.Join(err, f.Close()))
	}
	cfg := filepath.Join(dir, "sshd_config")
	must(t, os.WriteFile(cfg, []byte(strings.Join([]string{
		"Port " + strconv.Itoa(port),
		"ListenAddress 127.0.0.1",
		"HostKey " + hostKey,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + auth,
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"AllowTcpForwarding yes",
		"AllowStreamLocalForwarding yes",
		"AllowAgentForwarding no",
		"X11Forwarding no",
		// DEBUG1 logs each forwarded channel, which tests read to see
		// that the traffic went through the tunnel.
		"LogLevel DEBUG1",
		"SetEnv HOME=" + sessionHome,
	}, "\n")+"\n"), 0o600))

	s := &Server{Port: port, User: me.Username, Home: home, RigHome: rigHome, HostKey: hostPub, log: &syncBuffer{}}
	s.cmd = exec.Command(SSHDPath, "-D", "-e", "-f", cfg)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	t.Cleanup(s.Kill)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen on %s: %v\n%s", s.Addr(), err, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// Addr is host:port of sshd.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// URL is the rig address: ssh://USER@127.0.0.1:PORT.
func (s *Server) URL() string { return fmt.Sprintf("ssh://%s@%s", s.User, s.Addr()) }

// Getenv is the environment a test gives RigBench: HOME is the temporary
// one, and no agent.
func (s *Server) Getenv(k string) string {
	switch k {
	case "HOME":
		return s.Home
	case "SSH_AUTH_SOCK", "DOCKER_HOST", "DOCKER_CONFIG":
		return ""
	}
	return os.Getenv(k)
}

// Log is what sshd logged so far.
func (s *Server) Log() string { return s.log.String() }

// Kill ends sshd and every connection it serves (each is a child process
// in a session of its own, so the whole tree is killed), as a rig that
// drops off the network does.
func (s *Server) Kill() {
	s.once.Do(func() {
		for _, pid := range descendants(s.cmd.Process.Pid) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so cut at the last ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				parent[p] = pp
			}
		}
	}
	var out []int
	var walk func(int)
	walk = func(root int) {
		for p, pp := range parent {
			if pp == root {
				out = append(out, p)
				walk(p)
			}
		}
	}
	walk(pid)
	return out
}

func newKey(t testing.TB) (ssh.PublicKey, []byte) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	sp, err := ssh.NewPublicKey(pub)
	must(t, err)
	block, err := ssh.MarshalPrivateKey(priv, "")
	must(t, err)
	return sp, pem.EncodeToMemory(block)
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer sshd's processes write to while tests read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
