package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/sim"
)

// The rows of issue 29: the server dies at a point of a cell (its warm-up,
// its window, between two cells), as a process that is killed (the port
// refuses connections), or, with --launch, as a container that docker kill
// ends. No cell may read Valid after the death, the run must end within
// deathBound of it saying what it kept and how to resume, and resume must
// complete the run.

// deathBound is how soon after the death the run must have ended.
const deathBound = 5 * time.Second

// deathPoint is where in a run the server dies: the progress line that
// triggers the kill, how long after it, and the plan that puts the point
// where the line says (a 1K-token warm-up at the card's own pace lasts long
// enough to die in; the 20 s windows at speed 10 last 2 s).
type deathPoint struct {
	name    string
	trigger *regexp.Regexp
	after   time.Duration
	speed   float64
	plan    []string
}

var deathPoints = []deathPoint{
	{"in a warm-up", regexp.MustCompile(`^\[2/\d+\] decode 1K×1 .*warming up`), 0, 1,
		[]string{"--contexts", "1K", "--concurrency", "1,2", "--prefill", "512", "--duration", "10s", "--max-output", "32"}},
	{"mid-window", regexp.MustCompile(`^\[2/\d+\] decode 0×1 .*measuring`), time.Second, 10,
		[]string{"--contexts", "0,1K", "--concurrency", "1,2", "--prefill", "512", "--duration", "20s", "--max-output", "64"}},
	{"between cells", regexp.MustCompile(`^\[2/\d+\] decode 0×1 .*  (Valid|Requests queued):`), 0, 10,
		[]string{"--contexts", "0,1K", "--concurrency", "1,2", "--prefill", "512", "--duration", "20s", "--max-output", "64"}},
}

// killableSim is the simulator (tiny profile) on 127.0.0.1 whose kill is a
// process's death: the engine stops, open connections break, the port
// refuses new ones.
type killableSim struct {
	http *httptest.Server
	sim  *sim.Server
}

func newKillableSim(speed float64) (*killableSim, error) {
	cfg := sim.DefaultConfig()
	p, err := sim.ProfileByName("tiny")
	if err != nil {
		return nil, err
	}
	cfg.Profile, cfg.Speed, cfg.Seed = p, speed, 1
	s, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	return &killableSim{http: httptest.NewServer(s.Handler()), sim: s}, nil
}

func (k *killableSim) kill() {
	k.sim.Kill()
	k.http.Listener.Close()
	k.http.CloseClientConnections()
}

func (k *killableSim) close() { k.http.Close(); k.sim.Close() }

// resumeID finds the run ID in the resume advice of a stopped run.
var resumeID = regexp.MustCompile(`--resume ([0-9a-f]{8})`)

// death judges a run whose server was killed at killed: ended in time,
// no Valid cell after the death, and a sentence that says what was kept
// and how to resume. lines are the progress lines printed after the kill.
func (s *soak) death(r row, p *proc, killed time.Time, lines []string, want ...string) row {
	if r.outcome == "hung" || r.outcome == "crashed" {
		return r
	}
	took := p.ended.Sub(killed)
	r.took = took.Round(10 * time.Millisecond)
	msg := p.lastError()
	for _, l := range lines {
		if cellDone.MatchString(l) && strings.Contains(l, "  Valid") {
			r.outcome, r.detail = "valid after death", l
			return r
		}
	}
	if took > deathBound {
		r.outcome = "slow stop"
	}
	for _, w := range append([]string{"stopped answering", "measured and kept", "--resume"}, want...) {
		if !strings.Contains(msg, w) && r.outcome != "slow stop" {
			r.outcome = "unclear error"
		}
	}
	r.detail = fmt.Sprintf("ended %.1f s after the kill: %s", took.Seconds(), msg)
	return r
}

// drain returns the lines p printed that no wait has read yet.
func (p *proc) drain() []string {
	var out []string
	for {
		select {
		case l := <-p.lines:
			out = append(out, l)
		default:
			return out
		}
	}
}

// serverDies runs a plan against the simulator and kills it at the point.
// With resume it then starts the simulator again and resumes the run,
// which must complete.
func (s *soak) serverDies(name string, pt deathPoint, resume bool) row {
	ks, err := newKillableSim(pt.speed)
	if err != nil {
		return skipped(name, err)
	}
	defer ks.close()
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	args := append([]string{"run", "--endpoint", ks.http.URL, "--db", db, "--no-telemetry"}, pt.plan...)
	p, err := s.start(nil, args...)
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	if !p.waitFor(ctx, pt.trigger.MatchString) {
		p.wait(ctx)
		r := s.judge(name, p, true, db, "")
		r.outcome, r.detail = "failed", "the kill point never came: "+r.detail
		return r
	}
	time.Sleep(pt.after)
	killed := time.Now()
	ks.kill()
	ended := p.wait(ctx)
	r := s.death(s.judge(name, p, ended, db, ""), p, killed, p.drain())
	if !resume || r.outcome != "clear error" {
		return r
	}
	m := resumeID.FindStringSubmatch(p.lastError())
	if m == nil {
		r.outcome = "unclear error"
		return r
	}
	again, err := newKillableSim(pt.speed)
	if err != nil {
		return skipped(name, err)
	}
	defer again.close()
	q, err := s.start(nil, "run", "--endpoint", again.http.URL, "--db", db, "--no-telemetry", "--resume", m[1])
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	ended = q.wait(ctx)
	r2 := s.judge(name, q, ended, db, "")
	h := readHistory(db)
	if r2.outcome == "ok" && h.status == "complete" {
		r2.detail = fmt.Sprintf("resumed run %s: %d cells measured again, the run is complete with %d cells", m[1], q.finished(), h.cells)
	} else if r2.outcome == "ok" {
		r2.outcome, r2.detail = "failed", "the resumed run is "+h.status
	}
	return r2
}

// launchedServerDies is serverDies with `run --launch` of the simulator
// image, ended by docker kill mid-window: the sentence must name the
// container's exit code.
func (s *soak) launchedServerDies(name string) row {
	if err := s.dockerReady(); err != nil {
		return skipped(name, err)
	}
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, "run", "--launch", "--model", "sim/tiny", "--image", s.image, "--no-gpu", "--contexts", "0,1K",
		"--concurrency", "1,2", "--prefill", "512", "--duration", "20s", "--max-output", "64", "--db", db,
		"--no-telemetry", "--", "--max-model-len", "4096", "--speed", "10")
	if err != nil {
		return skipped(name, err)
	}
	if !p.waitFor(ctx, deathPoints[1].trigger.MatchString) {
		p.wait(ctx)
		r := s.judge(name, p, true, db, "")
		r.outcome, r.detail = "failed", "the kill point never came: "+r.detail
		return r
	}
	time.Sleep(deathPoints[1].after)
	names, err := containersOf(p.cmd.Process.Pid)
	if err != nil || len(names) != 1 {
		p.signal(9)
		p.wait(ctx)
		return row{name: name, outcome: "failed", db: "—", status: "—", detail: fmt.Sprintf("%d containers of the run (%v)", len(names), err)}
	}
	killed := time.Now()
	if out, err := exec.CommandContext(ctx, "docker", "kill", strings.TrimPrefix(names[0], "/")).CombinedOutput(); err != nil {
		p.signal(9)
		p.wait(ctx)
		return row{name: name, outcome: "failed", db: "—", status: "—", detail: fmt.Sprintf("docker kill: %v: %s", err, out)}
	}
	ended := p.wait(ctx)
	r := s.death(s.judge(name, p, ended, db, ""), p, killed, p.drain(), "exit code 137")
	if left, _ := containersOf(p.cmd.Process.Pid); len(left) > 0 {
		r.outcome = "container left"
	}
	return r
}

// waitFor waits for a stderr line that match accepts; false when the
// process ended or ctx ran out first.
func (p *proc) waitFor(ctx context.Context, match func(string) bool) bool {
	for {
		select {
		case l := <-p.lines:
			if match(l) {
				return true
			}
		case <-p.exited:
			for {
				select {
				case l := <-p.lines:
					if match(l) {
						return true
					}
				default:
					return false
				}
			}
		case <-ctx.Done():
			return false
		}
	}
}
