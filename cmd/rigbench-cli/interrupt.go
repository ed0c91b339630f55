package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// How long execute waits for a command to return after Ctrl-C or SIGTERM.
// Every command's loops and writers check the context, so they return well
// within stopGrace; the wait only bounds one stuck in a computation that
// does not (a huge render, a slow parser), which is then abandoned: the
// process exits, and a half-written export is never renamed into place.
// Commands that stop a container or save measured cells get cleanupGrace
// more, with a line saying what they are doing, since leaving a server on
// the GPU would be worse than a few seconds' wait.
const (
	stopGrace    = time.Second
	cleanupGrace = 30 * time.Second
)

// exitInterrupted is the exit status of a command stopped by a signal
// (128 + SIGINT, as shells report it).
const exitInterrupted = 130

// runInterruptible runs c and returns its error, or errInterrupted when
// it does not return in time after ctx is cancelled.
func runInterruptible(ctx context.Context, e *env, c *command, args []string) error {
	done := make(chan error, 1)
	go func() { done <- c.run(ctx, e, args) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	if c.cleanup != "" {
		fmt.Fprintf(e.stderr, "rigbench-cli %s: stopping: %s…\n", c.name, c.cleanup)
		t.Reset(cleanupGrace)
		select {
		case err := <-done:
			return err
		case <-t.C:
		}
	}
	return errInterrupted
}

// errInterrupted is a command abandoned after a signal.
var errInterrupted = errors.New("interrupted")

// ctxWriter fails the first write after ctx is done, so a render into it
// stops at its next write instead of running to the end after Ctrl-C.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
