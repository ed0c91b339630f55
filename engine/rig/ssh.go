package rig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/homedir"
)

// DockerSocket is where a rig's Docker daemon listens; the SSH connection
// forwards to it as `docker -H ssh://…` does.
const DockerSocket = "/var/run/docker.sock"

// DialTimeout bounds reaching a rig and its SSH handshake: an asleep or
// unplugged rig is reported rather than hanging a front end.
const DialTimeout = 15 * time.Second

// Options change how a rig is reached; the zero value reads the real
// environment.
type Options struct {
	// Getenv reads HOME (USERPROFILE on Windows) and SSH_AUTH_SOCK (nil:
	// os.Getenv). Tests point the home at a temporary folder, so the real
	// user's files are never read.
	Getenv func(string) string
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

// home is $HOME (%USERPROFILE% on Windows) as the options see it: the SSH
// settings are read from its .ssh folder, where both OpenSSH and Windows'
// own OpenSSH keep config, keys and known_hosts (the system ssh binary
// reads the password database instead, which is why RigBench does not run
// it).
func (o Options) home() string {
	if h := homedir.Lookup(o.getenv); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Error is a rig that cannot be reached, in one sentence with what to do.
type Error struct {
	// Rig is the rig's name as the user gave it.
	Rig string
	// Message is the sentence, fix included.
	Message string
	// Err is the cause, when there is one.
	Err error
}

func (e *Error) Error() string { return "rig " + e.Rig + ": " + e.Message }

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Err }

// HostKeyError is a host key RigBench refused: unknown (not in
// known_hosts) or changed (known_hosts holds another key for the host).
type HostKeyError struct {
	// Host is the host as known_hosts names it ("[127.0.0.1]:2222").
	Host string
	// Fingerprint is the key's SHA256 fingerprint ("SHA256:…").
	Fingerprint string
	// KeyType is the key's algorithm ("ssh-ed25519").
	KeyType string
	// Changed is true when known_hosts holds another key for the host.
	Changed bool
	// File and Line locate the known key that differs (Changed only).
	File string
	Line int
	// accept is the command that adds the key to known_hosts.
	accept string
	// key is the key the rig showed, and knownHosts the file Trust adds
	// it to (the first known_hosts file the SSH config names).
	key        ssh.PublicKey
	knownHosts string
}

// CanTrust reports whether Trust can add the key: an unknown key (a
// changed one is never replaced from RigBench: the old line must be
// removed by hand, after finding out why it changed).
func (e *HostKeyError) CanTrust() bool { return !e.Changed && e.key != nil && e.knownHosts != "" }

// Trust adds the rig's key to the user's known_hosts, as answering "yes"
// to ssh's question does, after the user compared the fingerprint; the
// next connection then checks the rig against it. The folder is made
// (0700) and the file created (0600) when missing.
func (e *HostKeyError) Trust() error {
	if !e.CanTrust() {
		return fmt.Errorf("the host key of %s cannot be trusted from RigBench: %s", e.Host, e.Error())
	}
	if err := os.MkdirAll(filepath.Dir(e.knownHosts), 0o700); err != nil {
		return fmt.Errorf("adding the host key of %s: %w", e.Host, err)
	}
	f, err := os.OpenFile(e.knownHosts, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("adding the host key of %s to %s: %w", e.Host, e.knownHosts, err)
	}
	_, werr := f.WriteString(knownhosts.Line([]string{e.Host}, e.key) + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("adding the host key of %s to %s: %w", e.Host, e.knownHosts, werr)
	}
	return nil
}

func (e *HostKeyError) Error() string {
	if e.Changed {
		return fmt.Sprintf("the host key of %s changed (it now shows %s %s, %s line %d holds another): if the rig was reinstalled, remove the old key with `ssh-keygen -R '%s'` and accept the new one with `%s`; otherwise do not connect, someone may be in between",
			e.Host, e.KeyType, e.Fingerprint, e.File, e.Line, e.Host, e.accept)
	}
	return fmt.Sprintf("the host key of %s (%s %s) is not in your known_hosts: compare the fingerprint with `ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub` on the rig, then accept it with `%s` or by connecting once with ssh",
		e.Host, e.KeyType, e.Fingerprint, hostKeyFile(e.KeyType), e.accept)
}

// hostKeyFile is the part of sshd's host key file name for a key type
// (/etc/ssh/ssh_host_ed25519_key.pub).
func hostKeyFile(keyType string) string {
	switch {
	case strings.HasPrefix(keyType, "ecdsa"):
		return "ecdsa"
	case keyType == ssh.KeyAlgoRSA:
		return "rsa"
	}
	return "ed25519"
}

// sshTarget is an SSH rig with ~/.ssh/config applied.
type sshTarget struct {
	user, host string
	port       int
	identities []string
	knownHosts []string
	agentOff   bool
}

// resolve applies $HOME/.ssh/config to the spec: the alias's HostName,
// User, Port and IdentityFile, as `ssh` would.
func resolve(s Spec, o Options) sshTarget {
	home := o.home()
	var hc hostConfig
	if f, err := os.Open(filepath.Join(home, ".ssh", "config")); err == nil {
		hc = parseSSHConfig(f, s.Host)
		f.Close()
	}
	t := sshTarget{user: s.User, host: s.Host, port: s.Port}
	if hc.HostName != "" {
		t.host = strings.ReplaceAll(hc.HostName, "%h", s.Host)
	}
	if t.user == "" {
		t.user = hc.User
	}
	if t.user == "" {
		t.user = o.getenv("USER")
	}
	if t.port == 0 {
		t.port = hc.Port
	}
	if t.port == 0 {
		t.port = 22
	}
	expand := func(p string) string {
		p = strings.ReplaceAll(p, "%d", home)
		p = strings.ReplaceAll(p, "%u", t.user)
		p = strings.ReplaceAll(p, "%h", t.host)
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[1:])
		}
		return p
	}
	for _, f := range hc.IdentityFiles {
		t.identities = append(t.identities, expand(f))
	}
	if len(t.identities) == 0 {
		for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			t.identities = append(t.identities, filepath.Join(home, ".ssh", n))
		}
	}
	for _, f := range hc.UserKnownHostsFile {
		if f != "none" {
			t.knownHosts = append(t.knownHosts, expand(f))
		}
	}
	if hc.UserKnownHostsFile == nil {
		t.knownHosts = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	t.agentOff = hc.IdentityAgent == "none"
	return t
}

// Conn is a connection to a rig. For the local daemon it holds nothing
// (its dialers are nil: use the defaults); for an SSH rig it is one SSH
// connection that carries the Docker API and the served port.
type Conn struct {
	spec Spec
	// dockerHost is the Docker host URL the Docker client gets
	// ("unix:///var/run/docker.sock" for an SSH rig, a context's host, ""
	// for the environment's).
	dockerHost string
	ssh        *ssh.Client
	addr       string // user@host:port, for sentences
	user       string
	socket     string // the rig's Docker socket (DockerSocket; tests change it)
	done       chan struct{}
	closing    sync.Once
	closed     bool
	mu         sync.Mutex
	waitErr    error
	// home is the rig user's home once Home has read it: every launch
	// and sweep variant on the connection asks, and the answer does not
	// change (a failed read is asked again).
	home string
}

// Spec is the rig this connection reaches.
func (c *Conn) Spec() Spec { return c.spec }

// Remote reports whether traffic goes through an SSH connection.
func (c *Conn) Remote() bool { return c != nil && c.ssh != nil }

// DockerHost is the host URL to give the Docker client, "" for the
// environment's (DOCKER_HOST or the default socket).
func (c *Conn) DockerHost() string {
	if c == nil {
		return ""
	}
	return c.dockerHost
}

// DialDocker opens a stream to the rig's Docker socket through the SSH
// connection; nil for a rig reached without SSH (the Docker client then
// dials its host itself).
func (c *Conn) DialDocker() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if !c.Remote() {
		return nil
	}
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		conn, err := c.ssh.DialContext(ctx, "unix", c.socket)
		if err != nil {
			if lost := c.LostError(); lost != nil {
				return nil, lost
			}
			return nil, &Error{Rig: c.spec.Name, Err: err, Message: fmt.Sprintf(
				"Docker does not answer on the rig at %s (%v): install Docker Engine there and start it (`sudo systemctl start docker`), and let %s use it (`sudo usermod -aG docker %s`)",
				c.socket, err, c.user, c.user)}
		}
		return conn, nil
	}
}

// Dial opens a TCP connection as seen from the rig: "127.0.0.1:8000" is the
// rig's loopback, so a server published on the rig's 127.0.0.1 only is
// reached without opening a port. Nil for a rig reached without SSH
// (dial directly).
func (c *Conn) Dial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if !c.Remote() {
		return nil
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := c.ssh.DialContext(ctx, "tcp", addr)
		if err != nil {
			// A dial error, as from this machine's network, so callers
			// that tell "refused" from "answered wrongly" (client.Probe)
			// read a dead tunnel as a server that cannot be reached.
			return nil, &net.OpError{Op: "dial", Net: network, Err: c.explain(err)}
		}
		return conn, nil
	}
}

// Home is the rig user's home folder, as the rig's shell gives $HOME: what
// "~" in a launch's mount (the Hugging Face cache) means there, where this
// machine's home would name a folder the rig may not have. "" for a rig
// reached without SSH (its paths are this machine's, or a daemon's whose
// home RigBench cannot ask).
func (c *Conn) Home(ctx context.Context) (string, error) {
	if !c.Remote() {
		return "", nil
	}
	c.mu.Lock()
	known := c.home
	c.mu.Unlock()
	if known != "" {
		return known, nil
	}
	sess, err := c.ssh.NewSession()
	if err != nil {
		return "", c.explain(err)
	}
	defer sess.Close()
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	defer stop()
	out, err := sess.Output(`printf %s "$HOME"`)
	home := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(home, "/") {
		return "", fmt.Errorf("the rig did not say its home folder (%q, %v)", home, err)
	}
	c.mu.Lock()
	c.home = home
	c.mu.Unlock()
	return home, nil
}

// Lost is closed when the SSH connection ends on its own (nil for a rig
// reached without SSH: never).
func (c *Conn) Lost() <-chan struct{} {
	if !c.Remote() {
		return nil
	}
	return c.done
}

// LostError is why the SSH connection ended, in one sentence; nil while
// it is up or after Close.
func (c *Conn) LostError() error {
	if !c.Remote() {
		return nil
	}
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	cause := "the connection closed"
	if c.waitErr != nil && !errors.Is(c.waitErr, net.ErrClosed) {
		cause = c.waitErr.Error()
	}
	return &Error{Rig: c.spec.Name, Message: fmt.Sprintf("the SSH connection to %s dropped (%s): check that the rig is awake and on the network", c.addr, cause)}
}

// explain turns a dial error after the connection dropped into the
// sentence that says so.
func (c *Conn) explain(err error) error {
	if lost := c.LostError(); lost != nil {
		return lost
	}
	return err
}

// Close ends the connection; for the local daemon it does nothing.
func (c *Conn) Close() error {
	if !c.Remote() {
		return nil
	}
	var err error
	c.closing.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		err = c.ssh.Close()
	})
	return err
}

// dialSSH connects to an SSH rig with the user's keys and agent, after
// checking its host key against known_hosts.
func dialSSH(ctx context.Context, s Spec, o Options) (*Conn, error) {
	t := resolve(s, o)
	addr := hostPort(t.host, t.port)
	who := t.user + "@" + addr
	// Pasted into a shell as printed: the user's text is quoted.
	copyID := fmt.Sprintf("ssh-copy-id -p %d %s", t.port, vllm.Quote(t.user+"@"+t.host))
	fail := func(msg string, err error) error { return &Error{Rig: s.Name, Message: msg, Err: err} }

	check, algos, err := hostKeyCheck(t, addr)
	if err != nil {
		return nil, fail(err.Error(), err)
	}
	auths, agentConn, notes := authMethods(t, o)
	if agentConn != nil {
		defer agentConn.conn.Close()
	}
	if len(auths) == 0 {
		return nil, fail(fmt.Sprintf("no SSH key to offer %s: create one with `ssh-keygen -t ed25519`, put it on the rig with `%s`, or start ssh-agent%s", who, copyID, notesText(notes)), nil)
	}
	// The methods are offered one after another, the agent's keys first:
	// the library tries a method name ("publickey") only once through
	// Auth, so a key source that failed (an agent that never signed)
	// would leave the key files untried.
	queue := auths
	cfg := &ssh.ClientConfig{
		User: t.user,
		AuthCallback: func(*ssh.ClientAuthContext) (ssh.AuthMethod, error) {
			if len(queue) == 0 {
				return nil, nil
			}
			m := queue[0]
			queue = queue[1:]
			return m, nil
		},
		HostKeyCallback:   check,
		HostKeyAlgorithms: algos,
		Timeout:           DialTimeout,
	}
	dctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	raw, err := (&net.Dialer{KeepAlive: 15 * time.Second}).DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, fail(fmt.Sprintf("cannot reach %s (%v): check that the rig is awake, that sshd runs on it and that the address and port are right", addr, unwrapOp(err)), err)
	}
	stop := context.AfterFunc(dctx, func() { raw.Close() }) // a handshake the rig never finishes
	sc, chans, reqs, err := ssh.NewClientConn(raw, addr, cfg)
	stop()
	if err != nil {
		raw.Close()
		var hk *HostKeyError
		if errors.As(err, &hk) {
			return nil, fail(hk.Error(), hk)
		}
		if agentConn != nil {
			notes = append(notes, agentConn.notes()...)
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, fail(fmt.Sprintf("%s refused every key RigBench offered: put your public key on the rig with `%s` (RigBench never asks for a password)%s", who, copyID, notesText(notes)), err)
		}
		if agentConn != nil && !agentConn.alive() {
			return nil, fail(fmt.Sprintf("the SSH handshake with %s failed%s", addr, notesText(notes)), err)
		}
		return nil, fail(fmt.Sprintf("the SSH handshake with %s failed (%v)", addr, err), err)
	}
	c := &Conn{spec: s, dockerHost: "unix://" + DockerSocket, ssh: ssh.NewClient(sc, chans, reqs), addr: who,
		user: t.user, socket: DockerSocket, done: make(chan struct{})}
	go func() {
		err := c.ssh.Wait()
		c.mu.Lock()
		c.waitErr = err
		c.mu.Unlock()
		close(c.done)
	}()
	go c.keepAlive()
	return c, nil
}

// keepAliveEvery is how often an idle SSH connection is checked, so a rig
// that vanished (unplugged, asleep) ends the connection within about
// three intervals even when no packet is in flight.
const keepAliveEvery = 10 * time.Second

func (c *Conn) keepAlive() {
	t := time.NewTicker(keepAliveEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			res := make(chan error, 1)
			go func() { _, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil); res <- err }()
			select {
			case err := <-res:
				if err != nil {
					c.ssh.Close()
				}
			case <-time.After(3 * keepAliveEvery):
				c.ssh.Close()
			case <-c.done:
				return
			}
		}
	}
}

func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

func notesText(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// AgentTimeout bounds each exchange with the SSH agent (connecting,
// listing its keys, one signature). An agent answers in milliseconds; one
// waiting for a PIN, a touch or a confirmation nobody gives would hang
// every rig command (issue 36 item 6: 121 s with no output until killed),
// and the connect limit does not cover it, since the agent is asked before
// the rig and signs from inside the handshake.
var AgentTimeout = 5 * time.Second

// agentConn is the connection to the user's SSH agent, each exchange
// bounded by AgentTimeout; what went wrong is kept as notes for the
// refusal's sentence.
type agentConn struct {
	conn net.Conn
	sock string
	mu   sync.Mutex
	said []string
	// dead is set once the agent has not answered in time: later keys
	// are not asked for a signature it will not give either.
	dead bool
}

// stall records that the agent did not answer step, and gives up on it.
func (a *agentConn) stall(step string) {
	a.note(a.stalled(step))
	a.mu.Lock()
	a.dead = true
	a.mu.Unlock()
}

// alive reports whether the agent has answered so far.
func (a *agentConn) alive() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.dead
}

// errAgentStalled is the signature of a key whose agent stopped answering.
var errAgentStalled = errors.New("the SSH agent stopped answering")

func (a *agentConn) note(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.said, s) {
		a.said = append(a.said, s)
	}
}

func (a *agentConn) notes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.said)
}

// stalled is the note for an agent that did not answer step in time.
func (a *agentConn) stalled(step string) string {
	return fmt.Sprintf("the SSH agent at %s did not %s within %s: is it waiting for a PIN, a touch or a confirmation? RigBench tried the key files instead",
		a.sock, step, AgentTimeout)
}

// timedSigner signs through the agent within AgentTimeout, so a signature
// the agent never gives fails this key (the next method, the key files, is
// tried) instead of hanging the handshake.
type timedSigner struct {
	ssh.Signer
	a *agentConn
}

func (s timedSigner) Sign(rand io.Reader, data []byte) (*ssh.Signature, error) {
	if !s.a.alive() {
		return nil, errAgentStalled
	}
	deadline := time.Now().Add(AgentTimeout)
	s.a.conn.SetDeadline(deadline)
	defer s.a.conn.SetDeadline(time.Time{})
	sig, err := s.Signer.Sign(rand, data)
	if err != nil && !time.Now().Before(deadline) {
		s.a.stall("sign")
	}
	return sig, err
}

// SignWithAlgorithm is Sign for an algorithm (RSA keys' SHA-2
// signatures), bounded alike.
func (s timedSigner) SignWithAlgorithm(rand io.Reader, data []byte, algorithm string) (*ssh.Signature, error) {
	as, ok := s.Signer.(ssh.AlgorithmSigner)
	if !ok {
		return s.Sign(rand, data)
	}
	if !s.a.alive() {
		return nil, errAgentStalled
	}
	deadline := time.Now().Add(AgentTimeout)
	s.a.conn.SetDeadline(deadline)
	defer s.a.conn.SetDeadline(time.Time{})
	sig, err := as.SignWithAlgorithm(rand, data, algorithm)
	if err != nil && !time.Now().Before(deadline) {
		s.a.stall("sign")
	}
	return sig, err
}

// authMethods offers the agent's keys (SSH_AUTH_SOCK, or Windows'
// OpenSSH agent: agentSocket) and then the
// identity files, as two methods, so a key the agent does not sign in
// time falls through to the files. Passphrase-protected files are skipped
// with a note, since RigBench asks for no passphrase; the agent is the way
// to use them. The agent is never forwarded.
func authMethods(t sshTarget, o Options) ([]ssh.AuthMethod, *agentConn, []string) {
	var (
		agentSigners, signers []ssh.Signer
		notes                 []string
		ac                    *agentConn
	)
	if sock := agentSocket(o.getenv); sock != "" && !t.agentOff {
		if conn, err := dialAgent(sock, AgentTimeout); err == nil {
			ac = &agentConn{conn: conn, sock: sock}
			deadline := time.Now().Add(AgentTimeout)
			conn.SetDeadline(deadline)
			ss, err := agent.NewClient(conn).Signers()
			conn.SetDeadline(time.Time{})
			switch {
			case err != nil && !time.Now().Before(deadline):
				// The agent's errors do not wrap the connection's, so
				// the clock says whether its deadline ended it.
				notes = append(notes, ac.stalled("list its keys"))
			case err == nil:
				for _, sg := range ss {
					agentSigners = append(agentSigners, timedSigner{Signer: sg, a: ac})
				}
			}
		}
	}
	for _, f := range t.identities {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sg, err := ssh.ParsePrivateKey(b)
		var pp *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &pp):
			notes = append(notes, fmt.Sprintf("%s is passphrase-protected: add it to the agent with `ssh-add %s`", f, f))
		case err != nil:
			notes = append(notes, fmt.Sprintf("%s is not a key RigBench can read (%v)", f, err))
		default:
			signers = append(signers, sg)
		}
	}
	var methods []ssh.AuthMethod
	if len(agentSigners) > 0 {
		methods = append(methods, ssh.PublicKeys(agentSigners...))
	}
	if len(signers) > 0 {
		methods = append(methods, ssh.PublicKeys(signers...))
	}
	return methods, ac, notes
}

// hostKeyCheck builds the host key check from the known_hosts files (a
// missing file knows no host) and the host key algorithms to ask for: those
// of the keys known for the host, so a rig with an ed25519 and an RSA key
// is asked for the one known_hosts holds rather than reported as changed.
func hostKeyCheck(t sshTarget, addr string) (ssh.HostKeyCallback, []string, error) {
	var files []string
	for _, f := range t.knownHosts {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	accept := fmt.Sprintf("ssh-keyscan -p %d %s >> ~/.ssh/known_hosts", t.port, vllm.Quote(t.host))
	trustIn := ""
	if len(t.knownHosts) > 0 {
		trustIn = t.knownHosts[0]
	}
	if len(files) == 0 {
		return func(host string, _ net.Addr, key ssh.PublicKey) error {
			return &HostKeyError{Host: knownhosts.Normalize(host), Fingerprint: ssh.FingerprintSHA256(key), KeyType: key.Type(), accept: accept,
				key: key, knownHosts: trustIn}
		}, nil, nil
	}
	cb, err := knownhosts.New(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", strings.Join(files, ", "), err)
	}
	check := func(host string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(host, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err
		}
		e := &HostKeyError{Host: knownhosts.Normalize(host), Fingerprint: ssh.FingerprintSHA256(key), KeyType: key.Type(), accept: accept,
			key: key, knownHosts: trustIn}
		if len(ke.Want) > 0 {
			e.Changed, e.File, e.Line = true, ke.Want[0].Filename, ke.Want[0].Line
		}
		return e
	}
	return check, knownAlgorithms(cb, addr), nil
}

// knownAlgorithms asks the known_hosts check which keys it holds for addr
// (a key it cannot hold comes back with the list) and returns their
// algorithms, nil when none is known (the library's defaults).
func knownAlgorithms(cb ssh.HostKeyCallback, addr string) []string {
	err := cb(addr, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, probeKey{})
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	for _, k := range ke.Want {
		for _, a := range algorithmsFor(k.Key.Type()) {
			if !seen[a] {
				seen[a] = true
				algos = append(algos, a)
			}
		}
	}
	return algos
}

// algorithmsFor lists the signature algorithms of a key type: an RSA key
// signs with SHA-2 (and SHA-1 on old servers).
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

// probeKey is a key no known_hosts line holds, for knownAlgorithms.
type probeKey struct{}

func (probeKey) Type() string                        { return "rigbench-probe" }
func (probeKey) Marshal() []byte                     { return []byte("rigbench-probe") }
func (probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("probe key") }
