package rig

import (
	"context"
	"fmt"
)

// Connect reaches the rig: nothing to do for the local daemon, a Docker
// context's endpoint, or an SSH connection. Close the Conn when done.
func Connect(ctx context.Context, s Spec, o Options) (*Conn, error) {
	switch s.Kind {
	case Local, "":
		return &Conn{spec: Spec{Kind: Local, Name: LocalName}}, nil
	case SSH:
		return dialSSH(ctx, s, o)
	case Context:
		ctxs, err := Contexts(o)
		if err != nil {
			return nil, &Error{Rig: s.Name, Message: err.Error(), Err: err}
		}
		for _, dc := range ctxs {
			if dc.Name != s.Name {
				continue
			}
			if dc.Host == "" {
				return &Conn{spec: s}, nil // the default context: the environment's daemon
			}
			if sp, err := Parse(dc.Host); err == nil && sp.Kind == SSH {
				c, err := dialSSH(ctx, sp, o)
				if err != nil {
					return nil, err
				}
				c.spec = s
				return c, nil
			}
			return &Conn{spec: s, dockerHost: dc.Host}, nil
		}
		return nil, &Error{Rig: s.Name, Message: fmt.Sprintf("there is no Docker context %q: list them with `rigbench-cli rigs`, or give ssh://user@host", s.Name)}
	}
	return nil, &Error{Rig: s.Name, Message: fmt.Sprintf("unknown rig kind %q", s.Kind)}
}
