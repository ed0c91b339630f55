// Package rig says where RigBench's servers run: a rig is a Docker host,
// the local daemon (the default), a host reached over SSH
// (ssh://user@host[:port], with the user's own ~/.ssh: config aliases,
// keys, the agent and known_hosts), or a Docker context the user already
// has. A Conn to a remote rig carries both the Docker API (the rig's
// /var/run/docker.sock) and the benchmark's HTTP traffic to the served
// port on the rig's loopback through one SSH connection, so no port is
// opened on the rig and the API key never crosses a network in the clear.
//
// The package knows nothing of Docker's client or of a run: engine/session
// hands Conn's dialers to engine/docker and engine/client.
package rig

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Kind is what a rig is.
type Kind string

// Rig kinds.
const (
	// Local is the Docker daemon of this machine (DOCKER_HOST or the
	// default socket), as before rigs existed.
	Local Kind = "local"
	// SSH is a Docker host reached with ssh://user@host[:port].
	SSH Kind = "ssh"
	// Context is a Docker context by name (docker context ls).
	Context Kind = "context"
)

// LocalName is the name the local daemon goes by in --rig and in lists.
const LocalName = "local"

// Spec is a rig as the user named it, before any connection.
type Spec struct {
	Kind Kind
	// Name is what the user typed, for messages ("local", "ssh://…", a
	// context's name).
	Name string
	// User, Host and Port address an SSH rig (Host may be an alias of
	// ~/.ssh/config; User and Port are "" and 0 when the address leaves
	// them to the config or the defaults).
	User string
	Host string
	Port int
}

// Remote reports whether the rig is another machine's daemon (its served
// port is reached through the rig's connection, not this machine's
// loopback).
func (s Spec) Remote() bool { return s.Kind == SSH }

// Public is the rig's name without the user name, for what a run records
// and a history shows: "ssh://host[:port]" of an SSH rig (host as typed,
// an alias stays an alias), the name of a context or "local". The user
// name is left out since a run document travels (exports, imports), and
// the host is what tells one box from another.
func (s Spec) Public() string {
	if s.Kind != SSH {
		return s.Name
	}
	if s.Port != 0 {
		return "ssh://" + hostPort(s.Host, s.Port)
	}
	if strings.Contains(s.Host, ":") {
		return "ssh://[" + s.Host + "]"
	}
	return "ssh://" + s.Host
}

// FieldError is a rig address that cannot be used: Field names the part
// ("scheme", "host", "port", "user", "name") and Reason says why, for each
// front end to word in its own terms.
type FieldError struct {
	Value, Field, Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("rig %q: %s %s", e.Value, e.Field, e.Reason)
}

// contextName is what Docker accepts as a context name.
var contextName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.+-]*$`)

// Parse reads a rig address as a user types it: "" or "local" is the
// local daemon, "ssh://[user@]host[:port]" an SSH rig, and any other name a
// Docker context. It is the one reader of rig addresses below ui/.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == LocalName {
		return Spec{Kind: Local, Name: LocalName}, nil
	}
	if strings.Contains(s, "://") {
		return parseSSH(s)
	}
	if !contextName.MatchString(s) {
		return Spec{}, &FieldError{Value: s, Field: "name",
			Reason: "is neither ssh://user@host[:port] nor a Docker context name (letters, digits, _ . + -)"}
	}
	return Spec{Kind: Context, Name: s}, nil
}

func parseSSH(s string) (Spec, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Spec{}, &FieldError{Value: s, Field: "address", Reason: "is not a URL: use ssh://user@host[:port]"}
	}
	if u.Scheme != "ssh" {
		return Spec{}, &FieldError{Value: s, Field: "scheme", Reason: fmt.Sprintf("%q is not supported: use ssh://user@host[:port]", u.Scheme)}
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Spec{}, &FieldError{Value: s, Field: "address", Reason: "has a path or query: use ssh://user@host[:port] alone"}
	}
	if _, set := u.User.Password(); set {
		return Spec{}, &FieldError{Value: s, Field: "user", Reason: "carries a password: RigBench uses your SSH keys and agent, never a password"}
	}
	host := u.Hostname()
	if host == "" || strings.ContainsAny(host, " \t/@") {
		return Spec{}, &FieldError{Value: s, Field: "host", Reason: "is missing: use ssh://user@host[:port]"}
	}
	sp := Spec{Kind: SSH, Name: s, Host: host, User: u.User.Username()}
	if strings.HasPrefix(sp.User, "-") || strings.HasPrefix(sp.Host, "-") {
		// ssh and ssh-copy-id would read it as an option
		// ("-oProxyCommand=…" runs a command).
		return Spec{}, &FieldError{Value: s, Field: "user", Reason: "or host starts with '-', which ssh would read as an option"}
	}
	if strings.ContainsAny(sp.User, " \t:") {
		return Spec{}, &FieldError{Value: s, Field: "user", Reason: "has a space or colon"}
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Spec{}, &FieldError{Value: s, Field: "port", Reason: "must be a number from 1 to 65535"}
		}
		sp.Port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return Spec{}, &FieldError{Value: s, Field: "port", Reason: "is empty"}
	}
	return sp, nil
}

// hostPort is host:port for dialing and for known_hosts.
func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// OverSSH reports whether a connection to the rig goes through SSH: an
// ssh:// address, or a Docker context whose endpoint is one. It reads the
// contexts (o's $DOCKER_CONFIG or $HOME/.docker) but connects to nothing,
// so a front end can word its defaults before the rig is reached; a
// context it cannot read is taken as not over SSH, and Connect says why.
func (s Spec) OverSSH(o Options) bool {
	switch s.Kind {
	case SSH:
		return true
	case Context:
		ctxs, err := Contexts(o)
		if err != nil {
			return false
		}
		for _, dc := range ctxs {
			if dc.Name == s.Name {
				sp, err := Parse(dc.Host)
				return err == nil && sp.Kind == SSH
			}
		}
	}
	return false
}
