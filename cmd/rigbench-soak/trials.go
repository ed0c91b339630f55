package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// demoRun is a small plan on the built-in simulator: six decode cells of
// a couple of seconds each.
func demoRun(db, js string) []string {
	args := []string{"run", "--demo", "--sim-profile", "tiny", "--sim-speed", "2", "--contexts", "0,1K",
		"--concurrency", "1,2,4", "--prefill", "none", "--duration", "2s", "--max-output", "64", "--no-telemetry", "--db", db}
	if js != "" {
		args = append(args, "--json", js)
	}
	return args
}

// killRun kills a run with SIGKILL at a random moment (or right as a
// random cell finishes) and checks that every cell it reported finished is
// in the history, which must pass SQLite's integrity check.
func (s *soak) killRun(name string, atCellEnd bool) row {
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, demoRun(db, "")...)
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	var when string
	if atCellEnd {
		k := 1 + s.rng.IntN(4)
		for p.finished() < k && p.waitLine(ctx, "] ") {
		}
		when = fmt.Sprintf("as cell %d finished", k)
	} else {
		d := time.Duration(200+s.rng.IntN(5000)) * time.Millisecond
		select {
		case <-time.After(d):
		case <-p.exited:
		}
		when = fmt.Sprintf("at %.1f s", d.Seconds())
	}
	p.signal(syscall.SIGKILL)
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, "")
	switch {
	case p.code() == 0:
		r.outcome = "ok"
		r.detail = "finished before the kill " + when
	case p.killedBy() == syscall.SIGKILL && r.lost == 0 && r.db == "ok":
		r.outcome = "kept cells"
		r.detail = fmt.Sprintf("killed %s: %d finished cells, all in the history", when, p.finished())
	case p.killedBy() == syscall.SIGKILL:
		r.outcome = "lost cells"
		r.detail = fmt.Sprintf("killed %s: %d finished cells, %d lost", when, p.finished(), r.lost)
	}
	return r
}

// signalRun presses Ctrl-C (SIGINT) during a run: it must stop within a
// second, say what it kept, and keep every finished cell.
func (s *soak) signalRun(name string) row {
	db, js := s.path("history.db"), s.path("run.json")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, demoRun(db, js)...)
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	p.waitLine(ctx, "[2/")
	sent := time.Now()
	p.signal(syscall.SIGINT)
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, js)
	stop := p.ended.Sub(sent)
	if ended && p.code() == 130 && !p.crashed() {
		r.outcome = "ok"
		if stop > time.Second {
			r.outcome = "slow stop"
		}
	}
	r.detail = fmt.Sprintf("stopped %d ms after the signal, exit %d: %s", stop.Milliseconds(), p.code(), p.lastError())
	return r
}

// lockedDB holds the history's write lock from another process (this one)
// for 12 s while a run records into it: from before the run starts, or
// from its first finished cell on.
func (s *soak) lockedDB(name string, midRun bool) row {
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	h, err := store.Open(ctx, db) // create it, as an earlier run would have
	if err != nil {
		return skipped(name, err)
	}
	h.Close()
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		return skipped(name, err)
	}
	defer raw.Close()
	conn, err := raw.Conn(ctx)
	if err != nil {
		return skipped(name, err)
	}
	defer conn.Close()
	lock := func() error {
		_, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
		return err
	}
	if !midRun {
		if err := lock(); err != nil {
			return skipped(name, fmt.Errorf("cannot lock: %w", err))
		}
	}
	p, err := s.start(nil, demoRun(db, "")...)
	if err != nil {
		conn.ExecContext(ctx, "ROLLBACK")
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	if midRun {
		for p.finished() < 1 && p.waitLine(ctx, "] ") {
		}
		if err := lock(); err != nil {
			p.wait(ctx)
			return skipped(name, fmt.Errorf("cannot lock: %w", err))
		}
	}
	select {
	case <-time.After(12 * time.Second):
	case <-p.exited:
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, "")
	if r.outcome == "clear error" && r.lost == 0 && r.status == string(rundoc.RunComplete) &&
		strings.Contains(p.lastError(), "could not save") {
		r.outcome = "false alarm" // every cell is there, yet the user is told otherwise
	}
	r.detail = fmt.Sprintf("%d cells finished, %d saved: %s", p.finished(), p.finished()-r.lost, r.detail)
	return r
}

// fullDisk runs with the history and the JSON on a 4 MiB tmpfs that fills
// up after the first cell (onFullDisk): every finished cell must be kept,
// in the history, the JSON or the copy the message names.
func (s *soak) fullDisk(name string) row {
	return s.onFullDisk(name, true, func(p *proc, ended bool, db, js string) row {
		r := s.judge(name, p, ended, db, js)
		if strings.Contains(p.errText(), "nothing was lost") && r.lost > 0 {
			r.outcome = "false claim"
		}
		if r.outcome == "clear error" && r.lost == 0 {
			r.outcome = "kept cells"
		}
		r.detail = fmt.Sprintf("%d cells finished, %d kept: %s", p.finished(), p.finished()-r.lost, r.detail)
		return r
	})
}

// execCombined runs a command to its end and returns its output.
func execCombined(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// fill writes to path until the file system is full.
func fill(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				f.Sync()
			}
			return
		}
	}
}

// signalImport sends SIGTERM to `import` of a 60 MiB file 100 ms in: it
// must stop within a second, and import nothing half-way.
func (s *soak) signalImport(name string) row {
	big := s.path("big.json")
	f, err := os.Create(big)
	if err != nil {
		return skipped(name, err)
	}
	f.WriteString(`{"format":"rigbench.run/v1","notes":"`)
	chunk := []byte(strings.Repeat("a", 1<<20))
	for range 60 {
		f.Write(chunk)
	}
	f.WriteString(`"}`)
	f.Close()
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, "import", big, "--db", db)
	if err != nil {
		return skipped(name, err)
	}
	time.Sleep(100 * time.Millisecond)
	sent := time.Now()
	p.signal(syscall.SIGTERM)
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, "")
	stop := p.ended.Sub(sent)
	if ended && !p.crashed() && (p.code() == 130 || p.code() == 1) && r.status == "—" {
		r.outcome = "ok"
		if stop > time.Second {
			r.outcome = "slow stop"
		}
	}
	r.detail = fmt.Sprintf("stopped %d ms after the signal, exit %d: %s", max(0, stop.Milliseconds()), p.code(), p.lastError())
	return r
}
