package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/redact"
)

// Container is a running server RigBench started. Stop it when done.
type Container struct {
	l        *Launcher
	id, name string
	port     int
	apiKey   string
	cfg      vllm.LaunchConfig
	redact   redact.Redactor
	facts    *vllm.StartupFacts
	tail     tail
	// execID is set when the server is a process exec'd into the
	// container (a cluster's `vllm serve` in the Ray head's): its exit,
	// not the container's, is the server's.
	execID string
	// autoRemove is set for a container its daemon removes once it
	// exits (a cluster's node): Stop waits until it is gone.
	autoRemove bool

	logCancel context.CancelFunc
	logsDone  chan struct{}
	following bool // followLogs ran, so logsDone will close
	stopOnce  sync.Once
	stopErr   error
}

func newContainer(l *Launcher, id, name string, port int, apiKey string, cfg vllm.LaunchConfig, r redact.Redactor) *Container {
	bs, _ := cfg.Get("--block-size")
	n, _ := strconv.Atoi(bs)
	return &Container{l: l, id: id, name: name, port: port, apiKey: apiKey, cfg: cfg, redact: r,
		facts: vllm.NewStartupFacts(n), tail: tail{max: 200}, logsDone: make(chan struct{}), logCancel: func() {}}
}

// ID is the Docker container id.
func (c *Container) ID() string { return c.id }

// Name is the container name ("rigbench-…").
func (c *Container) Name() string { return c.name }

// Endpoint is the server's base URL on the loopback interface.
func (c *Container) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(c.port) }

// APIKey is the random key this launch requires of clients.
func (c *Container) APIKey() string { return c.apiKey }

// Config is the launch configuration the container runs.
func (c *Container) Config() vllm.LaunchConfig { return c.cfg }

// Facts is what the start-up log told so far (KV capacity, version).
func (c *Container) Facts() vllm.FactsSnapshot { return c.facts.Snapshot() }

// Tail returns the last log lines (redacted), for showing beside an error.
func (c *Container) Tail() []LogLine { return c.tail.get() }

// Exited is closed when the container's output ends: it exited or was stopped.
func (c *Container) Exited() <-chan struct{} { return c.logsDone }

// followLogs streams the demultiplexed log to the facts recogniser, the tail
// and obs until the container exits or Stop is called.
func (c *Container) followLogs(obs func(LogLine)) {
	ctx, cancel := context.WithCancel(context.Background())
	c.logCancel, c.following = cancel, true
	emit := c.emitter(obs)
	go func() {
		defer close(c.logsDone)
		rc, err := c.l.api.ContainerLogs(ctx, c.id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Follow: true})
		if err != nil {
			emit(LogLine{Stream: "stderr", Text: "rigbench: reading the container log failed: " + err.Error(), Time: time.Now()})
			return
		}
		defer rc.Close()
		copyLines(rc, emit) // ends at exit, on Stop, or on a broken stream
	}()
}

// emitter is what each log line goes through: redacted, read by the
// facts recogniser, kept in the tail, and passed to obs.
func (c *Container) emitter(obs func(LogLine)) func(LogLine) {
	return func(l LogLine) {
		l.Text = c.redact.String(l.Text)
		c.facts.Observe(l.Text)
		c.tail.add(l)
		if obs != nil {
			obs(l)
		}
	}
}

// copyLines splits Docker's multiplexed stream r into lines to emit until
// it ends.
func copyLines(r io.Reader, emit func(LogLine)) {
	out := &lineWriter{stream: "stdout", emit: emit}
	errw := &lineWriter{stream: "stderr", emit: emit}
	stdcopy.StdCopy(out, errw, r)
	out.flush()
	errw.flush()
}

// StartupFailure reports a server that exited before it was ready. Cause is
// the recognised vLLM failure, nil when the log held none; Tail holds the
// last log lines to show with it.
type StartupFailure struct {
	ExitCode int
	Cause    *vllm.StartupError
	Tail     []LogLine
}

func (e *StartupFailure) Error() string {
	if e.Cause != nil {
		return e.Cause.Error()
	}
	return fmt.Sprintf("the server stopped during start-up (exit code %d): read its last log lines for the reason", e.ExitCode)
}

// Unwrap exposes the recognised vLLM failure to errors.As.
func (e *StartupFailure) Unwrap() error {
	if e.Cause == nil {
		return nil
	}
	return e.Cause
}

// exitFailure builds the StartupFailure once the log has ended.
func (c *Container) exitFailure(ctx context.Context) error {
	code := -1
	if c.execID != "" {
		if info, err := c.l.api.ContainerExecInspect(context.WithoutCancel(ctx), c.execID); err == nil {
			if info.Running {
				return nil
			}
			code = info.ExitCode
		}
		return &StartupFailure{ExitCode: code, Cause: c.facts.Snapshot().Err, Tail: c.tail.get()}
	}
	if info, err := c.l.api.ContainerInspect(context.WithoutCancel(ctx), c.id); err == nil && info.State != nil {
		if info.State.Running {
			return nil
		}
		code = info.State.ExitCode
	}
	return &StartupFailure{ExitCode: code, Cause: c.facts.Snapshot().Err, Tail: c.tail.get()}
}

// ExitReport says why a container that was serving ended, for the
// sentence that stops a run: its exit code and what the start-up failure
// recognisers make of its last log lines ("exit code 1; the GPU ran out of
// memory …: try …"). A server that dies mid-run (out of memory is the
// common case) logs what a failed start-up logs, so the same recognisers
// read it; only the tail is read, since an early line the server survived
// says nothing of its end.
func (c *Container) ExitReport(ctx context.Context) string {
	msg := "exit code unknown"
	if c.execID != "" {
		if info, err := c.l.api.ContainerExecInspect(context.WithoutCancel(ctx), c.execID); err == nil && !info.Running {
			msg = fmt.Sprintf("exit code %d", info.ExitCode)
		}
	} else if info, err := c.l.api.ContainerInspect(context.WithoutCancel(ctx), c.id); err == nil && info.State != nil {
		msg = fmt.Sprintf("exit code %d", info.State.ExitCode)
		if info.State.OOMKilled {
			msg += ", killed by the kernel for want of memory"
		} else if info.State.ExitCode == 137 {
			msg += ", killed (docker kill, or out of memory)"
		}
	}
	if cause := exitCause(c.tail.get()); cause != "" {
		msg += "; " + cause
	}
	return msg
}

// exitCause is what the start-up failure recognisers make of the last
// exitReportLines log lines of a server that ended mid-run, "" when they
// recognise nothing. Out of memory is worded for a server that was
// serving: the recogniser's own sentence says "while loading the model".
func exitCause(tail []LogLine) string {
	facts := vllm.NewStartupFacts(0)
	for _, l := range tail[max(0, len(tail)-exitReportLines):] {
		facts.Observe(l.Text)
	}
	e := facts.Snapshot().Err
	switch {
	case e == nil:
		return ""
	case e.Kind == vllm.ErrOutOfMemory:
		return "the card ran out of memory while serving: " + e.Fix
	}
	return e.Error()
}

// exitReportLines is how many last log lines ExitReport reads.
const exitReportLines = 50

// Stop stops and removes the container. It is safe to call more than once
// and from several goroutines, and it works with an already-cancelled
// context: clean-up must happen on the cancel path too.
func (c *Container) Stop(ctx context.Context) error {
	c.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.l.stopTimeout+30*time.Second)
		defer cancel()
		secs := int(c.l.stopTimeout / time.Second)
		err := c.l.api.ContainerStop(ctx, c.id, container.StopOptions{Timeout: &secs})
		if err != nil && !cerrdefs.IsNotFound(err) {
			c.stopErr = fmt.Errorf("stopping %s: %w", c.name, classify(err))
		}
		err = c.l.api.ContainerRemove(ctx, c.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !cerrdefs.IsNotFound(err) && !isRemovalInProgress(err) {
			c.stopErr = errors.Join(c.stopErr, fmt.Errorf("removing %s: %w", c.name, classify(err)))
		}
		c.logCancel()
		if c.autoRemove {
			c.waitGone(ctx)
		}
		if !c.following {
			return
		}
		select {
		case <-c.logsDone:
		case <-ctx.Done():
		}
	})
	return c.stopErr
}

// waitGone waits until the daemon has removed the container (an
// auto-removed one is removed a moment after it stops), or ctx ends, so a
// stopped cluster has left nothing when Stop returns.
func (c *Container) waitGone(ctx context.Context) {
	for {
		if _, err := c.l.api.ContainerInspect(ctx, c.id); cerrdefs.IsNotFound(err) || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.l.poll / 5):
		}
	}
}

func isRemovalInProgress(err error) bool {
	return err != nil && cerrdefs.IsConflict(err)
}
