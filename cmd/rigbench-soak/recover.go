package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// The rows of issue 36: a server whose /metrics says NaN, the recovery
// paths (importing the full disk's copy, two resumes of one run at once),
// an export onto the open history through a descriptor, a resume with
// other launch flags, and a server that streams past max_tokens.

// perCellBound is the longest one small cell may take at the simulator's
// own pace: a NaN gauge held each for the idle wait's 60 s.
const perCellBound = 20 * time.Second

// firstAnswerBound is how soon a run must stop against a server that
// ignores max_tokens: it waited out ten minutes before.
const firstAnswerBound = 30 * time.Second

// nanMetricsRun runs two cells against a server whose /metrics says NaN
// or +Inf (f): every cell must be saved, the run exit 0, no token count
// read from a NaN printed, and no cell held for the idle wait.
func (s *soak) nanMetricsRun(name string, f slowFault) row {
	fs, err := newSlowFaultServer(f, 1)
	if err != nil {
		return skipped(name, err)
	}
	defer fs.close()
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, "run", "--endpoint", fs.http.URL, "--contexts", "0", "--concurrency", "1,2",
		"--prefill", "none", "--duration", "2s", "--max-output", "64", "--db", db, "--no-telemetry")
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, "")
	h := readHistory(db)
	cells := p.finished()
	r.detail = fmt.Sprintf("%d cells finished, %d saved, %.1f s a cell: %s", cells, h.cells,
		r.took.Seconds()/float64(max(cells, 1)), r.detail)
	switch {
	case r.outcome != "ok" && r.outcome != "clear error":
	case strings.Contains(p.errText()+p.outText(), "-9223372036854775808"):
		r.outcome = "wrong figure"
	case r.outcome != "ok" || cells != 2 || h.cells != cells || h.status != string(rundoc.RunComplete):
		r.outcome = "failed"
	case r.took > time.Duration(cells)*perCellBound:
		r.outcome = "slow"
	}
	return r
}

// pastMaxTokensRun runs against a server that streams past max_tokens:
// the run must stop within seconds, saying the server ignores the limit.
func (s *soak) pastMaxTokensRun(name string) row {
	fs, err := newSlowFaultServer(pastMaxTokens, 1)
	if err != nil {
		return skipped(name, err)
	}
	defer fs.close()
	db := s.path("history.db")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, "run", "--endpoint", fs.http.URL, "--contexts", "0", "--concurrency", "1",
		"--prefill", "none", "--duration", "2s", "--max-output", "32", "--db", db, "--no-telemetry")
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, "")
	switch {
	case r.outcome == "hung" || r.outcome == "crashed":
	case r.outcome == "ok":
		r.outcome = "failed" // measured a server that ignores the limit every figure relies on
	case r.took > firstAnswerBound:
		r.outcome = "slow stop"
	case !strings.Contains(p.lastError(), "past max_tokens"):
		r.outcome = "unclear error"
	}
	r.detail = fmt.Sprintf("ended %.1f s after the start: %s", r.took.Seconds(), r.detail)
	return r
}

// fullDiskImport is the full disk row followed by its recovery: the space
// is freed and the copy of the run the message names is imported, which
// must complete the run in the history with every cell.
func (s *soak) fullDiskImport(name string) row {
	return s.onFullDisk(name, false, func(p *proc, ended bool, db, _ string) row {
		m := fallbackJSON.FindStringSubmatch(p.errText())
		kept := readHistory(db).cells
		if m == nil {
			r := s.judge(name, p, ended, db, "")
			if r.outcome == "clear error" || r.outcome == "ok" {
				r.outcome = "failed"
			}
			r.detail = "no copy of the run was named to import: " + r.detail
			return r
		}
		defer os.Remove(m[1])
		ctx, cancel := s.ctx()
		defer cancel()
		q, err := s.start(nil, "import", m[1], "--db", db)
		if err != nil {
			return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
		}
		r := s.judge(name, q, q.wait(ctx), db, "")
		h := readHistory(db)
		r.lost = max(0, p.finished()-h.cells)
		r.took = q.ended.Sub(p.began).Round(10 * time.Millisecond) // the run, its full disk and the import
		said := strings.TrimSpace(q.outText())
		if r.outcome == "ok" && (r.lost > 0 || !strings.Contains(said, "completed with")) {
			r.outcome = "failed"
		}
		r.detail = fmt.Sprintf("%d cells finished, the history kept %d; import of the copy: %s; the history has %d",
			p.finished(), kept, lastOr(said, r.detail), h.cells)
		return r
	})
}

// interruptedRun leaves in the history at db a run of demoRun's plan that
// a kill -9 stopped after its first cell, and returns its ID and cells.
func (s *soak) interruptedRun(db string) (id string, cells int, err error) {
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, demoRun(db, "")...)
	if err != nil {
		return "", 0, err
	}
	for p.finished() < 1 && p.waitLine(ctx, "] ") {
	}
	p.signal(syscall.SIGKILL)
	p.wait(ctx)
	r, err := newestRun(db)
	if err != nil {
		return "", 0, err
	}
	if r.Status == rundoc.RunComplete {
		return "", 0, errors.New("the run finished before the kill")
	}
	return rundoc.ShortID(r.UUID), finishedCells(r), nil
}

// demoResume is the resume of an interrupted demoRun with its own
// simulator settings.
func demoResume(db, id string, extra ...string) []string {
	return append([]string{"run", "--resume", id, "--demo", "--sim-profile", "tiny", "--sim-speed", "2",
		"--no-telemetry", "--db", db}, extra...)
}

// twoResumes starts two `run --resume ID` of one interrupted run at once:
// exactly one may measure, the other must be refused before it measures,
// and the history must end with the run complete, each cell once.
func (s *soak) twoResumes(name string) row {
	db := s.path("history.db")
	id, before, err := s.interruptedRun(db)
	if err != nil {
		return skipped(name, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	a, err := s.start(nil, demoResume(db, id)...)
	if err != nil {
		return skipped(name, err)
	}
	b, err := s.start(nil, demoResume(db, id)...)
	if err != nil {
		a.wait(ctx)
		return skipped(name, err)
	}
	endedA, endedB := a.wait(ctx), b.wait(ctx)
	if b.code() == 0 && a.code() != 0 {
		a, b, endedA, endedB = b, a, endedB, endedA // a is the one that measured
	}
	r := s.judge(name, a, endedA && endedB, db, "")
	run, err := newestRun(db)
	if err != nil {
		r.outcome, r.detail = "failed", err.Error()
		return r
	}
	refused := b.lastError()
	r.detail = fmt.Sprintf("run %s had %d cells; one resume measured %d, the other: %s; the history has %d, %d twice",
		id, before, a.finished(), lastOr(refused, fmt.Sprintf("exit %d", b.code())), finishedCells(run), repeatedCells(run))
	switch {
	case r.outcome == "hung" || r.outcome == "crashed":
	case a.code() == 0 && b.code() == 0:
		r.outcome = "started twice"
	case b.finished() > 0 || !strings.Contains(refused, "being measured by another RigBench"):
		r.outcome = "unclear error"
	case a.code() != 0 || run.Status != rundoc.RunComplete || repeatedCells(run) > 0 || finishedCells(run) != before+a.finished():
		r.outcome = "failed"
	default:
		r.outcome = "ok"
	}
	return r
}

// resumeOtherFlags resumes a run measured at the server's defaults with
// other launch flags: the resume must be refused before it measures,
// naming the flags, and leave the run as it was.
func (s *soak) resumeOtherFlags(name string) row {
	db := s.path("history.db")
	id, _, err := s.interruptedRun(db)
	if err != nil {
		return skipped(name, err)
	}
	was, err := runText(db)
	if err != nil {
		return skipped(name, err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, demoResume(db, id, "--", "--max-num-seqs", "2")...)
	if err != nil {
		return skipped(name, err)
	}
	r := s.judge(name, p, p.wait(ctx), db, "")
	now, err := runText(db)
	switch {
	case r.outcome == "hung" || r.outcome == "crashed":
	case r.outcome == "ok" || p.finished() > 0:
		r.outcome = "relabelled"
	case err != nil || now != was:
		r.outcome = "changed the run"
	case !strings.Contains(p.lastError(), "launch flags") || !strings.Contains(p.lastError(), "--max-num-seqs 2"):
		r.outcome = "unclear error"
	}
	return r
}

// exportOntoDescriptor gives `export -o` the open history by descriptor:
// the history is open in this process and handed to the CLI as its
// descriptor 3, then named /dev/fd/3 and /proc/self/fd/3. Both must be
// refused, naming the history, and the history must stay as it was.
func (s *soak) exportOntoDescriptor(name string) row {
	db := s.path("history.db")
	id, _, err := s.interruptedRun(db)
	if err != nil {
		return skipped(name, err)
	}
	was, err := runText(db)
	if err != nil {
		return skipped(name, err)
	}
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		return skipped(name, err)
	}
	defer f.Close()
	ctx, cancel := s.ctx()
	defer cancel()
	var r row
	var said []string
	for _, out := range []string{"/dev/fd/3", "/proc/self/fd/3"} {
		p, err := s.startWith([]*os.File{f}, nil, "export", id, "-o", out, "--db", db)
		if err != nil {
			return skipped(name, err)
		}
		r = s.judge(name, p, p.wait(ctx), db, "")
		said = append(said, lastOr(p.lastError(), strings.TrimSpace(p.outText())))
		switch {
		case r.outcome == "hung" || r.outcome == "crashed":
		case r.outcome == "ok":
			r.outcome = "overwrote"
		case !strings.Contains(p.lastError(), "history"):
			r.outcome = "unclear error"
		}
		if r.outcome != "clear error" {
			break
		}
	}
	if now, err := runText(db); r.outcome == "clear error" && (err != nil || now != was) {
		r.outcome = "changed the run"
	}
	r.detail = strings.Join(said, " | ")
	return r
}

// onFullDisk mounts a 4 MiB tmpfs, runs demoRun with the history (and,
// withJSON, its --json) on it, fills the tmpfs once the first cell has
// finished, frees the space once the run has ended, and returns what
// judge makes of the run. Mounting needs root; elsewhere the row is
// skipped with the reason.
func (s *soak) onFullDisk(name string, withJSON bool, judge func(p *proc, ended bool, db, js string) row) row {
	skip := func(why string) row {
		return row{name: name, outcome: "skipped", db: "—", status: "—", detail: why}
	}
	if os.Geteuid() != 0 {
		return skip("needs root to mount a small tmpfs")
	}
	mnt := s.path("tmpfs")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return skip(err.Error())
	}
	if out, err := execCombined("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt); err != nil {
		return skip("cannot mount a tmpfs here: " + strings.TrimSpace(out))
	}
	defer execCombined("umount", "-l", mnt)
	db, js := filepath.Join(mnt, "history.db"), ""
	if withJSON {
		js = filepath.Join(mnt, "run.json")
	}
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, demoRun(db, js)...)
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	p.waitLine(ctx, "[1/")
	for p.finished() < 1 && p.waitLine(ctx, "] ") {
	}
	filler := filepath.Join(mnt, "filler")
	fill(filler)
	ended := p.wait(ctx)
	os.Remove(filler) // room to read the history back
	return judge(p, ended, db, js)
}
