package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/simimage"
)

var (
	imageOnce sync.Once
	imageErr  error
)

// dockerReady connects to the daemon and builds the simulator image once;
// the error says why the Docker rows are skipped.
func (s *soak) dockerReady() error {
	imageOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		l, err := docker.New(ctx)
		if err != nil {
			imageErr = fmt.Errorf("no Docker daemon (%v)", err)
			return
		}
		defer l.Close()
		b, ok := l.API().(simimage.Builder)
		if !ok {
			imageErr = fmt.Errorf("the Docker client cannot build images")
			return
		}
		if err := simimage.Build(ctx, b, s.image); err != nil {
			imageErr = fmt.Errorf("building the simulator image: %v", err)
		}
	})
	return imageErr
}

// launchArgs launches the simulator image as if it were vLLM.
func (s *soak) launchArgs(extra ...string) []string {
	args := append([]string{"launch", "--model", "sim/tiny", "--image", s.image, "--no-gpu", "--timeout", "2m"}, extra...)
	return append(args, "--", "--max-model-len", "4096", "--speed", "20")
}

// runLaunchArgs is a small run on a launched simulator image.
func (s *soak) runLaunchArgs(db string) []string {
	return []string{"run", "--launch", "--model", "sim/tiny", "--image", s.image, "--no-gpu", "--contexts", "0,1K",
		"--concurrency", "1,2", "--prefill", "none", "--duration", "3s", "--max-output", "32", "--db", db,
		"--no-telemetry", "--", "--max-model-len", "4096", "--speed", "20"}
}

func skipped(name string, err error) row {
	return row{name: name, outcome: "skipped", db: "—", status: "—", detail: err.Error()}
}

// containersOf lists the RigBench containers whose owner is pid.
func containersOf(pid int) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := docker.New(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	list, err := l.Managed(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range list {
		if m.OwnerOK && m.Owner.PID == pid {
			names = append(names, strings.Join(m.Names, ","))
		}
	}
	return names, nil
}

// launchDuringRun starts a second `launch` while `run --launch` measures:
// the first run must finish complete, its server untouched.
func (s *soak) launchDuringRun(name string) row {
	if err := s.dockerReady(); err != nil {
		return skipped(name, err)
	}
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	a, err := s.start(nil, s.runLaunchArgs(db)...)
	if err != nil {
		return skipped(name, err)
	}
	a.waitLine(ctx, "[1/")
	b, err := s.start(nil, s.launchArgs()...)
	if err != nil {
		return skipped(name, err)
	}
	served := b.waitLine(ctx, "serving")
	b.signal(syscall.SIGINT)
	b.wait(ctx)
	ended := a.wait(ctx)
	r := s.judge(name, a, ended, db, "")
	if r.outcome == "ok" && r.status == "complete" {
		r.detail = fmt.Sprintf("the run finished complete (%d cells); the second launch served too: %v", a.finished(), served)
	} else if !served {
		r.detail += "; the second launch: " + b.lastError()
	}
	return r
}

// samePort launches twice on one port: the second must refuse, in one
// sentence that names the other RigBench, and the first keep serving.
func (s *soak) samePort(name string) row {
	if err := s.dockerReady(); err != nil {
		return skipped(name, err)
	}
	port, err := docker.FreePort()
	if err != nil {
		return skipped(name, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	a, err := s.start(nil, s.launchArgs("--port", strconv.Itoa(port))...)
	if err != nil {
		return skipped(name, err)
	}
	defer func() { a.signal(syscall.SIGINT); a.wait(ctx) }()
	if !a.waitLine(ctx, "serving") {
		r := s.judge(name, a, true, "", "")
		r.detail = "the first launch did not serve: " + a.lastError()
		return r
	}
	b, err := s.start(nil, s.launchArgs("--port", strconv.Itoa(port))...)
	if err != nil {
		return skipped(name, err)
	}
	ended := b.wait(ctx)
	r := s.judge(name, b, ended, "", "")
	if r.outcome == "clear error" && !strings.Contains(b.lastError(), "another RigBench") {
		r.outcome = "unclear error"
	}
	if r.outcome == "ok" {
		r.outcome = "started twice"
	}
	return r
}

// orphan kills `run --launch` with SIGKILL, which leaves its container
// running with no owner; the next launch must remove it, and the killed
// run keep its finished cells.
func (s *soak) orphan(name string) row {
	if err := s.dockerReady(); err != nil {
		return skipped(name, err)
	}
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	a, err := s.start(nil, s.runLaunchArgs(db)...)
	if err != nil {
		return skipped(name, err)
	}
	a.waitLine(ctx, "[2/")
	a.signal(syscall.SIGKILL)
	a.wait(ctx)
	left, _ := containersOf(a.cmd.Process.Pid)
	b, err := s.start(nil, s.launchArgs()...)
	if err != nil {
		return skipped(name, err)
	}
	b.waitLine(ctx, "serving")
	b.signal(syscall.SIGINT)
	bEnded := b.wait(ctx)
	after, _ := containersOf(a.cmd.Process.Pid)
	r := s.judge(name, a, true, db, "")
	r.rssMB, r.took = b.rssMB(), b.ended.Sub(a.began)
	switch {
	case !bEnded:
		r.outcome = "hung"
	case len(after) > 0:
		r.outcome = "orphan kept"
		r.detail = fmt.Sprintf("%s still there after the next launch", strings.Join(after, " "))
	case r.lost == 0 && r.db == "ok":
		r.outcome = "kept cells"
		r.detail = fmt.Sprintf("%d container left by the kill, removed by the next launch (%q); %d finished cells kept",
			len(left), firstLine(b.errText(), "removed"), a.finished())
	default:
		r.outcome = "lost cells"
	}
	return r
}

// signalLaunch sends SIGTERM to a serving `launch`: it must stop and
// remove its container.
func (s *soak) signalLaunch(name string) row {
	if err := s.dockerReady(); err != nil {
		return skipped(name, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	a, err := s.start(nil, s.launchArgs()...)
	if err != nil {
		return skipped(name, err)
	}
	a.waitLine(ctx, "serving")
	sent := time.Now()
	a.signal(syscall.SIGTERM)
	ended := a.wait(ctx)
	r := s.judge(name, a, ended, "", "")
	left, err := containersOf(a.cmd.Process.Pid)
	switch {
	case err != nil:
		r.detail += "; cannot list containers: " + err.Error()
	case len(left) > 0:
		r.outcome = "container left"
	}
	r.detail = fmt.Sprintf("stopped %d ms after SIGTERM, exit %d, %d container left: %s",
		a.ended.Sub(sent).Milliseconds(), a.code(), len(left), r.detail)
	return r
}
