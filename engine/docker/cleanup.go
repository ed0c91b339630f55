package docker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Managed is a container RigBench started, with what its labels say about
// who started it and what it holds.
type Managed struct {
	container.Summary
	// Owner is the process that started it (ok false: no owner label, as
	// from RigBench before owners were recorded).
	Owner   Owner
	OwnerOK bool
	// State is Owner's state seen from this process.
	State OwnerState
	// GPUs is the --gpus request ("" for none) and Port the host port.
	GPUs string
	Port int
}

// Leftover reports whether m was left behind: its owner is gone, or it
// has no owner and no longer runs. A container whose owner is alive, or
// cannot be judged, is never a leftover, running or not.
func (m Managed) Leftover() bool {
	if m.OwnerOK {
		return m.State == OwnerGone
	}
	return m.Summary.State != container.StateRunning
}

// Managed lists the containers carrying the launcher's labels, live or
// left over.
func (l *Launcher) Managed(ctx context.Context) ([]Managed, error) {
	f := filters.NewArgs()
	for k, v := range l.labels {
		f.Add("label", k+"="+v)
	}
	return l.list(ctx, f)
}

func (l *Launcher) list(ctx context.Context, f filters.Args) ([]Managed, error) {
	list, err := l.api.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("listing RigBench containers: %w", classify(err))
	}
	out := make([]Managed, 0, len(list))
	for _, s := range list {
		m := Managed{Summary: s, GPUs: s.Labels[LabelGPUs]}
		m.Port, _ = strconv.Atoi(s.Labels[LabelPort])
		for _, p := range s.Ports {
			if m.Port == 0 && int(p.PrivatePort) == vllm.ContainerPort && p.PublicPort > 0 {
				m.Port = int(p.PublicPort) // chosen by Docker on a remote rig (publishedPort)
			}
		}
		if m.Owner, m.OwnerOK = ParseOwner(s.Labels[LabelOwner]); m.OwnerOK {
			m.State = m.Owner.State()
		} else {
			m.State = OwnerUnknown
		}
		out = append(out, m)
	}
	return out, nil
}

// CleanupLeftovers removes the containers carrying the launcher's labels
// that were left behind (Managed.Leftover): servers of a RigBench that
// crashed or was killed. A container another live RigBench runs is never
// touched. It returns how many it removed. Call it at start, before
// launching.
func (l *Launcher) CleanupLeftovers(ctx context.Context) (int, error) {
	list, err := l.Managed(ctx)
	if err != nil {
		return 0, err
	}
	return l.remove(ctx, slices.DeleteFunc(list, func(m Managed) bool { return !m.Leftover() }))
}

// RemoveAll removes every container carrying the launcher's labels, live
// or not. Tests clean up their own containers with it; a front end must not
// call it, since it takes servers other RigBench processes measure.
func (l *Launcher) RemoveAll(ctx context.Context) (int, error) {
	list, err := l.Managed(ctx)
	if err != nil {
		return 0, err
	}
	return l.remove(ctx, list)
}

func (l *Launcher) remove(ctx context.Context, list []Managed) (int, error) {
	var errs []error
	n := 0
	for _, m := range list {
		err := l.api.ContainerRemove(ctx, m.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("removing leftover container %s: %w", m.ID[:min(12, len(m.ID))], classify(err)))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// checkBusy refuses a launch on a GPU or port that a running RigBench
// container holds, whatever its instance: two servers on one card run out
// of memory or measure each other, and a second bind of a port fails
// later with a vaguer error. gpus is the request ("" for none). Called
// with self "" before creating, it also counts containers a live RigBench
// is starting; called with the new container's id after creating, it counts
// those only when they are older, so of two launches at the same instant
// exactly one goes ahead.
func (l *Launcher) checkBusy(ctx context.Context, gpus string, port int, self string) error {
	f := filters.NewArgs()
	f.Add("label", LabelManaged)
	f.Add("status", "running")
	f.Add("status", "created")
	list, err := l.list(ctx, f)
	if err != nil {
		return err
	}
	var me *Managed
	for i := range list {
		if list[i].ID == self {
			me = &list[i]
		}
	}
	for _, m := range list {
		if m.ID == self {
			continue
		}
		if m.Summary.State != container.StateRunning &&
			(m.Leftover() || me != nil && !older(m, *me)) {
			continue
		}
		var what string
		switch {
		case port > 0 && m.Port == port:
			what = "port " + strconv.Itoa(port)
		case gpusOverlap(gpus, m.GPUs):
			what = gpuWords(gpus, m.GPUs)
		default:
			continue
		}
		return busyError(m, what)
	}
	return nil
}

// older orders containers by creation (seconds), then by id.
func older(a, b Managed) bool {
	if a.Created != b.Created {
		return a.Created < b.Created
	}
	return a.ID < b.ID
}

// busyError is the one sentence a refused launch shows: who holds what,
// and what to do.
func busyError(m Managed, what string) *Error {
	name := strings.TrimPrefix(firstName(m.Names), "/")
	e := &Error{Kind: ErrBusy, Err: errors.New("container " + name + " holds " + what)}
	if m.Labels[LabelManaged] == "kept" {
		e.Message = "a server kept running by `rigbench-cli launch --keep` (container " + name + ") is using " + what
		e.Hint = "stop it with `docker rm -f " + name + "` when you no longer need it"
		return e
	}
	if m.Leftover() {
		e.Message = "a server left by an earlier RigBench (container " + name + ") is using " + what
		e.Hint = "remove it with `docker rm -f " + name + "`"
		return e
	}
	who := "another RigBench"
	if me, err := Self(); m.OwnerOK && m.State == OwnerAlive {
		who += " (process " + strconv.Itoa(m.Owner.PID) + ")"
	} else if m.OwnerOK && (err != nil || m.Owner.Host != me.Host) {
		// A rig two desktops share: the owner runs on the other one.
		who += " on " + m.Owner.Host
	}
	e.Message = who + " is using " + what + " with container " + name
	if strings.HasPrefix(what, "port") {
		e.Hint = "wait until it finishes, or choose another port"
	} else {
		e.Hint = "wait until it finishes, or choose other GPUs with --gpus"
	}
	return e
}

func firstName(names []string) string {
	if len(names) == 0 {
		return "?"
	}
	return names[0]
}

// gpusOverlap reports whether two --gpus requests can share a device: no
// request shares nothing, "all" and "count=N" may take any device, and
// device lists overlap when they name a common index or UUID.
func gpusOverlap(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == "all" || b == "all" || strings.HasPrefix(a, "count=") || strings.HasPrefix(b, "count=") {
		return true
	}
	bs := strings.Split(b, ",")
	for _, d := range strings.Split(a, ",") {
		if slices.Contains(bs, strings.TrimSpace(d)) {
			return true
		}
	}
	return false
}

// gpuWords names the GPUs two overlapping requests share, for the message.
func gpuWords(a, b string) string {
	if a != "all" && !strings.HasPrefix(a, "count=") {
		bs := strings.Split(b, ",")
		var common []string
		for _, d := range strings.Split(a, ",") {
			if b == "all" || strings.HasPrefix(b, "count=") || slices.Contains(bs, d) {
				common = append(common, d)
			}
		}
		if len(common) == 1 {
			return "GPU " + common[0]
		}
		return "GPUs " + strings.Join(common, ",")
	}
	if b != "all" && !strings.HasPrefix(b, "count=") {
		return gpuWords(b, a)
	}
	return "the GPUs"
}
