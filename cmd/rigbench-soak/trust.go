package main

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rigbench/rigbench/store"
)

// The rows of issue 23: outputs onto the history, concurrent first opens,
// unbounded sweeps, streams that finish without [DONE], odd served model
// names.

// outputOntoHistory gives the history itself as --json: the run must be
// refused before it starts, naming the history, and the history must stay
// a good one.
func (s *soak) outputOntoHistory(name string) row {
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	h, err := store.Open(ctx, db) // an existing history, as an earlier run leaves it
	if err != nil {
		return skipped(name, err)
	}
	h.Close()
	p, err := s.start(nil, demoRun(db, db)...)
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, "")
	switch {
	case ended && p.code() == 0:
		r.outcome = "overwrote"
	case r.outcome == "clear error" && !strings.Contains(p.lastError(), "history"):
		r.outcome = "unclear error"
	}
	return r
}

// concurrentFirstOpen starts two `runs` on a history that does not exist
// yet, five times: every one must succeed (the second waits for the
// first's schema instead of creating it again).
func (s *soak) concurrentFirstOpen(name string) row {
	ctx, cancel := s.ctx()
	defer cancel()
	const tries = 5
	failed, last := 0, ""
	var r row
	for range tries {
		db := s.path("new.db")
		a, err := s.start(nil, "runs", "--db", db)
		if err != nil {
			return skipped(name, err)
		}
		b, err := s.start(nil, "runs", "--db", db)
		if err != nil {
			a.wait(ctx)
			return skipped(name, err)
		}
		for _, p := range []*proc{a, b} {
			ended := p.wait(ctx)
			r = s.judge(name, p, ended, db, "")
			if r.outcome != "ok" {
				failed, last = failed+1, r.detail
			}
		}
	}
	r.outcome, r.detail = "ok", fmt.Sprintf("%d pairs of first opens, all succeeded", tries)
	if failed > 0 {
		r.outcome, r.detail = "failed", fmt.Sprintf("%d of %d opens failed: %s", failed, 2*tries, last)
	}
	return r
}

// hugeSweep asks for two dimensions of 10,000 values each (10⁸ variants):
// the sweep must be refused at once, naming the cap, in little memory.
func (s *soak) hugeSweep(name string) row {
	values := func(from int) string {
		v := make([]string, 10000)
		for i := range v {
			v[i] = strconv.Itoa(from + i)
		}
		return strings.Join(v, ",")
	}
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, "tune", "--demo", "--vary", "max-model-len="+values(1024), "--vary", "max-num-batched-tokens="+values(2048),
		"--contexts", "1K", "--concurrency", "1", "--no-save")
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, "", "")
	took := p.ended.Sub(p.began)
	switch {
	case r.outcome == "clear error" && !strings.Contains(p.lastError(), "at most"):
		r.outcome = "unclear error"
	case r.outcome == "clear error" && took > time.Second:
		r.outcome = "slow refusal"
	}
	return r
}

// oddServedName launches the simulator image with --served-model-name
// 'a b; c': the server serves that whole name, and the launch must see it
// ready and serve, not wait out its 2-minute timeout for a model "a".
func (s *soak) oddServedName(name string) row {
	if err := s.dockerReady(); err != nil {
		return skipped(name, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, append(s.launchArgs(), "--served-model-name", "a b; c")...)
	if err != nil {
		return skipped(name, err)
	}
	served := p.waitLine(ctx, "serving")
	ready := p.ended.Sub(p.began)
	if served {
		ready = time.Since(p.began)
	}
	p.signal(syscall.SIGINT)
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, "", "")
	r.outcome, r.detail = "ok", fmt.Sprintf("served %q after %.1f s", "a b; c", ready.Seconds())
	if !served {
		r.outcome, r.detail = "failed", "never served: "+p.lastError()
	}
	return r
}
