package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/internal/termtext"
)

func init() {
	register(&command{
		name:    "rigs",
		usage:   "rigs",
		summary: "List the rigs --rig takes: the local Docker daemon and your Docker contexts (ssh://user@host works too).",
		run:     runRigs,
	})
}

// rigUsage is the --rig flag's help, one text for hw, launch and run.
const rigUsage = "Docker host to use: local (default), ssh://user@host[:port] (your ~/.ssh config, keys, agent and known_hosts), or a Docker context's name (see rigbench-cli rigs)"

// rigSpec reads --rig; a bad address is a usage error naming the part.
func rigSpec(value string) (rig.Spec, error) {
	s, err := rig.Parse(value)
	var fe *rig.FieldError
	if errors.As(err, &fe) {
		return rig.Spec{}, usagef("--rig %q: the %s %s", fe.Value, fe.Field, fe.Reason)
	}
	return s, err
}

// connectRig reaches the rig --rig names; nil for the local daemon (the
// launcher's defaults). The caller closes a non-nil Conn.
func connectRig(ctx context.Context, e *env, value string) (*rig.Conn, error) {
	s, err := rigSpec(value)
	if err != nil || s.Kind == rig.Local {
		return nil, err
	}
	return rig.Connect(ctx, s, rig.Options{Getenv: e.getenv})
}

// withRig connects l to the rig --rig names, if one is named, and
// returns the function that closes the connection.
func withRig(ctx context.Context, e *env, value string, l *session.DockerLauncher) (func(), error) {
	conn, err := connectRig(ctx, e, value)
	if err != nil || conn == nil {
		return func() {}, err
	}
	l.Rig = conn
	return func() { conn.Close() }, nil
}

// runRigs lists the local daemon and the Docker contexts.
func runRigs(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("rigs", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return exitError{code: 2}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	ctxs, err := rig.Contexts(rig.Options{Getenv: e.getenv})
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "RIG\tDOCKER HOST\tDESCRIPTION")
	fmt.Fprintf(w, "%s\t%s\t%s\n", rig.LocalName, orNA(e.getenv("DOCKER_HOST")), "this machine's Docker daemon (the default)")
	for _, c := range ctxs {
		if c.Name == "default" {
			continue // the local daemon, listed above
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", termtext.Safe(c.Name), orNA(c.Host), termtext.Safe(c.Description))
	}
	fmt.Fprintln(w, "ssh://user@host[:port]\t\tany host your ~/.ssh reaches, with Docker on it")
	if ferr := w.Flush(); ferr != nil {
		return ferr
	}
	return err
}
