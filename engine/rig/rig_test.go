package rig

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestParseRigAddresses(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
	}{
		{"", Spec{Kind: Local, Name: LocalName}},
		{" local ", Spec{Kind: Local, Name: LocalName}},
		{"ssh://root@box", Spec{Kind: SSH, Name: "ssh://root@box", User: "root", Host: "box"}},
		{"ssh://me@10.0.0.7:2222", Spec{Kind: SSH, Name: "ssh://me@10.0.0.7:2222", User: "me", Host: "10.0.0.7", Port: 2222}},
		{"ssh://basement", Spec{Kind: SSH, Name: "ssh://basement", Host: "basement"}},
		{"ssh://u@[::1]:22", Spec{Kind: SSH, Name: "ssh://u@[::1]:22", User: "u", Host: "::1", Port: 22}},
		{"gpu-box.2", Spec{Kind: Context, Name: "gpu-box.2"}},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestPublicNameLeavesOutTheUser(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "local",
		"ssh://root@box":         "ssh://box",
		"ssh://me@10.0.0.7:2222": "ssh://10.0.0.7:2222",
		"ssh://u@[::1]:22":       "ssh://[::1]:22",
		"ssh://u@[::1]":          "ssh://[::1]",
		"gpu-box.2":              "gpu-box.2",
	} {
		s, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if got := s.Public(); got != want {
			t.Errorf("Parse(%q).Public() = %q, want %q", in, got, want)
		}
		if back, err := Parse(s.Public()); err != nil || back.Host != s.Host || back.Port != s.Port || back.User != "" {
			t.Errorf("Parse(%q) = %+v, %v; want the host and port of %q without a user", s.Public(), back, err, in)
		}
	}
}

func TestParseRigAddressErrorsNameTheField(t *testing.T) {
	for in, field := range map[string]string{
		"tcp://box:2375":      "scheme",
		"ssh://":              "host",
		"ssh://me@box:0":      "port",
		"ssh://me@box:99999":  "port",
		"ssh://me@box:":       "port",
		"ssh://me:pw@box":     "user",
		"ssh://me@box/docker": "address",
		"two words":           "name",
	} {
		_, err := Parse(in)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("Parse(%q) = %v; want a FieldError on %q", in, err, field)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "local", "ssh://root@127.0.0.1:2222", "ssh://[::1]", "ctx", "ssh://a:b@c", "%zz://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := Parse(s)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q) error %v is not a FieldError", s, err)
			}
			return
		}
		switch sp.Kind {
		case Local, Context:
		case SSH:
			if sp.Host == "" || sp.Port < 0 || sp.Port > 65535 {
				t.Fatalf("Parse(%q) = %+v: an SSH rig without a host or with a bad port", s, sp)
			}
		default:
			t.Fatalf("Parse(%q) kind %q", s, sp.Kind)
		}
	})
}

func TestSSHConfigAppliesTheFirstMatchingValue(t *testing.T) {
	cfg := `
# the basement box
Host basement box?
    HostName 192.168.1.50
    User me
    Port 2200
    IdentityFile ~/.ssh/basement
Host *.lan !nope.lan
  User lanuser
Host *
  User fallback
  Port=22
  IdentityFile "~/.ssh/id with space"
  UserKnownHostsFile ~/.ssh/known_hosts ~/.ssh/known_hosts2
Match host basement
  User never
`
	got := parseSSHConfig(strings.NewReader(cfg), "basement")
	if got.HostName != "192.168.1.50" || got.User != "me" || got.Port != 2200 {
		t.Errorf("basement: %+v", got)
	}
	if len(got.IdentityFiles) != 2 || got.IdentityFiles[0] != "~/.ssh/basement" || got.IdentityFiles[1] != "~/.ssh/id with space" {
		t.Errorf("identity files accumulate in order: %q", got.IdentityFiles)
	}
	if len(got.UserKnownHostsFile) != 2 {
		t.Errorf("known hosts files: %q", got.UserKnownHostsFile)
	}
	if u := parseSSHConfig(strings.NewReader(cfg), "a.lan").User; u != "lanuser" {
		t.Errorf("a.lan user %q", u)
	}
	if u := parseSSHConfig(strings.NewReader(cfg), "nope.lan").User; u != "fallback" {
		t.Errorf("a negated pattern must not match: nope.lan user %q", u)
	}
	if h := parseSSHConfig(strings.NewReader(cfg), "other").HostName; h != "" {
		t.Errorf("other host name %q", h)
	}
}

func FuzzSSHConfig(f *testing.F) {
	f.Add("Host a\n HostName b\n Port 22\n", "a")
	f.Add("Host=\"x y\" !z\nIdentityFile \"unterminated\n", "x")
	f.Add("Port 99999999999999999999\nHost [a]\\", "[a]")
	f.Fuzz(func(t *testing.T, cfg, host string) {
		c := parseSSHConfig(strings.NewReader(cfg), host)
		if c.Port < 0 || c.Port > 65535 {
			t.Fatalf("port %d out of range", c.Port)
		}
	})
}

func TestParseDockerContextMeta(t *testing.T) {
	dc, err := parseContextMeta([]byte(`{"Name":"basement","Metadata":{"Description":"3090 box"},"Endpoints":{"docker":{"Host":"ssh://me@basement","SkipTLSVerify":false}}}`))
	if err != nil || dc != (DockerContext{Name: "basement", Host: "ssh://me@basement", Description: "3090 box"}) {
		t.Fatalf("got %+v, %v", dc, err)
	}
	if _, err := parseContextMeta([]byte(`{"Endpoints":{}}`)); err == nil {
		t.Fatal("a context without a name must be refused")
	}
}

func FuzzParseContextMeta(f *testing.F) {
	f.Add([]byte(`{"Name":"x","Endpoints":{"docker":{"Host":"unix:///var/run/docker.sock"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dc, err := parseContextMeta(b)
		if err == nil && dc.Name == "" {
			t.Fatal("a context without a name was accepted")
		}
	})
}

// A rig that does not answer (asleep, unplugged, no sshd) is one sentence
// with what to check.
func TestUnreachableRigIsOneSentence(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	home := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	spec, err := Parse("ssh://me@" + addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Connect(context.Background(), spec, Options{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	var re *Error
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "cannot reach "+addr) || !strings.Contains(err.Error(), "check that the rig is awake") {
		t.Fatalf("err = %v", err)
	}
}
