package docker

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// ExecTimeout bounds one command run in a server's container: a telemetry
// reading (nvidia-smi answers in well under a second, a rig over SSH adds
// a round trip or two) must not hold up the sampler's next tick for long.
const ExecTimeout = 10 * time.Second

// Exec runs cmd in the server's running container, as `docker exec` does,
// and returns its standard output. It is how a remote rig's GPUs are read
// during a run: nvidia-smi is in every GPU container (the NVIDIA Container
// Toolkit mounts it), the Docker API reaches it over the rig's one SSH
// connection, and nothing is installed on the rig. A non-zero exit is an
// error holding the first line of its output.
func (c *Container) Exec(ctx context.Context, cmd []string) (string, error) {
	if len(cmd) == 0 {
		return "", fmt.Errorf("no command to run in %s", c.name)
	}
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	api := c.l.api
	ex, err := api.ContainerExecCreate(ctx, c.id, container.ExecOptions{Cmd: cmd, AttachStdout: true, AttachStderr: true})
	if err != nil {
		return "", fmt.Errorf("running %s in %s: %w", cmd[0], c.name, classify(err))
	}
	att, err := api.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return "", fmt.Errorf("running %s in %s: %w", cmd[0], c.name, classify(err))
	}
	var out, errb bytes.Buffer
	done := make(chan error, 1)
	go func() { _, err := stdcopy.StdCopy(&out, &errb, att.Reader); done <- err }()
	select {
	case err = <-done:
	case <-ctx.Done():
		att.Close()
		<-done
		return "", fmt.Errorf("%s in %s did not finish within %s", cmd[0], c.name, rundoc.ShortDuration(ExecTimeout))
	}
	att.Close()
	if err != nil {
		return "", fmt.Errorf("reading the output of %s: %w", cmd[0], err)
	}
	var info container.ExecInspect
	for {
		info, err = api.ContainerExecInspect(ctx, ex.ID)
		if err != nil {
			return "", fmt.Errorf("reading the exit code of %s: %w", cmd[0], classify(err))
		}
		if !info.Running {
			break
		}
		select { // the output can end a moment before the state changes
		case <-ctx.Done():
			return "", fmt.Errorf("%s in %s did not finish within %s", cmd[0], c.name, rundoc.ShortDuration(ExecTimeout))
		case <-time.After(c.l.poll):
		}
	}
	if info.ExitCode != 0 {
		msg := strings.TrimSpace(errb.String() + " " + out.String())
		return "", &ExecError{Cmd: cmd[0], Container: c.name, Code: info.ExitCode, Output: firstLine(msg)}
	}
	return out.String(), nil
}

// ExecError is a command run by Exec that exited with a non-zero code, so
// a caller can tell a refusal (nvidia-smi's exit code 2 for a field it
// does not know) from a connection that failed.
type ExecError struct {
	Cmd, Container string
	Code           int
	// Output is the first line of what it printed.
	Output string
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("%s in %s exited with code %d: %s", e.Cmd, e.Container, e.Code, e.Output)
}
