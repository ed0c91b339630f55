package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/engine/sim"
)

// fault is a way a server fails. It wraps the simulator's completion
// endpoints (everything else, /v1/models and /version included, is the
// simulator's own); before is how many completion requests go through
// untouched first, so some faults strike mid-run.
type fault struct {
	name   string
	before int64
	handle func(fs *faultServer, w http.ResponseWriter, r *http.Request)
}

// mustSucceed names the faults a client must take in its stride: their row
// is ok only when the run exits 0.
var mustSucceed = map[string]bool{"finishes without [DONE], connection kept open": true}

// faults are the server faults of the table, in its order.
var faults = []fault{
	{"dies mid-run", 16, func(fs *faultServer, w http.ResponseWriter, r *http.Request) {
		fs.die(w)
	}},
	{"stalls at first request", 0, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}},
	{"stalls mid-stream", 3, func(fs *faultServer, w http.ResponseWriter, r *http.Request) {
		fs.sim.ServeHTTP(&stallAfter{ResponseWriter: w, ctx: r.Context(), lines: 3}, r)
	}},
	{"sends garbage", 3, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		junk := make([]byte, 256<<10)
		rand.Read(junk)
		w.Write(junk)
	}},
	{"sends invalid JSON", 3, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\": [{\"text\": oops\n\ndata: {not json at all\n\ndata: [DONE]\n\n"))
	}},
	{"omits [DONE]", 3, func(fs *faultServer, w http.ResponseWriter, r *http.Request) {
		fs.sim.ServeHTTP(&dropDone{ResponseWriter: w}, r)
	}},
	{"finishes without [DONE], connection kept open", 3, func(fs *faultServer, w http.ResponseWriter, r *http.Request) {
		fs.sim.ServeHTTP(&dropDone{ResponseWriter: w}, r)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // neither [DONE] nor EOF: the client must end the request itself
	}},
	{"answers 500", 3, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"object":"error","message":"CUDA error: an illegal memory access was encountered","type":"InternalServerError","code":500}`))
	}},
	{"answers 429", 3, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"object":"error","message":"rate limit exceeded","type":"TooManyRequests","code":429}`))
	}},
	{"sends a 64 MiB chunk", 3, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(`data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":"`))
		piece := bytes.Repeat([]byte("a"), 1<<20)
		for range 64 {
			if _, err := w.Write(piece); err != nil {
				return
			}
		}
		w.Write([]byte("\"}]}\n\ndata: [DONE]\n\n"))
	}},
	{"sends an endless line", 3, func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: "))
		piece := bytes.Repeat([]byte("x"), 64<<10)
		for written := 0; written < 4<<30; written += len(piece) {
			if _, err := w.Write(piece); err != nil {
				return
			}
		}
	}},
}

// faultServer is the simulator (tiny profile, speed 50, so the run's
// stuck limits scale down with it) behind one fault.
type faultServer struct {
	http  *httptest.Server
	sim   http.Handler
	f     fault
	seen  atomic.Int64
	close func()
}

func newFaultServer(f fault) (*faultServer, error) {
	cfg := sim.DefaultConfig()
	p, err := sim.ProfileByName("tiny")
	if err != nil {
		return nil, err
	}
	cfg.Profile, cfg.Speed = p, 50
	s, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	fs := &faultServer{sim: s.Handler(), f: f}
	fs.http = httptest.NewServer(http.HandlerFunc(fs.serve))
	fs.close = func() { fs.http.CloseClientConnections(); fs.http.Close(); s.Close() }
	return fs, nil
}

func (fs *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/completions") {
		fs.sim.ServeHTTP(w, r)
		return
	}
	if fs.seen.Add(1) <= fs.f.before {
		fs.sim.ServeHTTP(w, r)
		return
	}
	fs.f.handle(fs, w, r)
}

// die drops the connection of this request and of every later one, and
// stops listening, as a server process that exits.
func (fs *faultServer) die(w http.ResponseWriter) {
	go fs.http.Listener.Close()
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}
	go fs.http.CloseClientConnections()
}

// stallAfter passes a stream through until it has written lines data
// lines, then holds the connection open, silent, until the client leaves.
type stallAfter struct {
	http.ResponseWriter
	ctx   context.Context
	lines int
}

func (s *stallAfter) Write(b []byte) (int, error) {
	if s.lines <= 0 {
		<-s.ctx.Done()
		return 0, s.ctx.Err()
	}
	s.lines -= bytes.Count(b, []byte("data:"))
	return s.ResponseWriter.Write(b)
}

func (s *stallAfter) Flush() { s.ResponseWriter.(http.Flusher).Flush() }

// dropDone passes a stream through without its closing "data: [DONE]".
type dropDone struct{ http.ResponseWriter }

func (d *dropDone) Write(b []byte) (int, error) {
	out := bytes.ReplaceAll(b, []byte("data: [DONE]\n\n"), nil)
	if _, err := d.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (d *dropDone) Flush() { d.ResponseWriter.(http.Flusher).Flush() }

// serverFault runs a small plan against the fault's server and reads the
// outcome.
func (s *soak) serverFault(f fault) row {
	name := "server " + f.name
	fs, err := newFaultServer(f)
	if err != nil {
		return row{name: name, outcome: "skipped", db: "—", status: "—", detail: err.Error()}
	}
	defer fs.close()
	db, js := s.path("history.db"), s.path("run.json")
	ctx, cancel := s.ctx()
	defer cancel()
	p, err := s.start(nil, "run", "--endpoint", fs.http.URL, "--contexts", "0,1K", "--concurrency", "1,2",
		"--prefill", "none", "--duration", "2s", "--max-output", "32", "--db", db, "--json", js, "--no-telemetry")
	if err != nil {
		return row{name: name, outcome: "crashed", db: "—", status: "—", detail: err.Error()}
	}
	ended := p.wait(ctx)
	r := s.judge(name, p, ended, db, js)
	r.detail = fmt.Sprintf("%d cells finished: %s", p.finished(), r.detail)
	if mustSucceed[f.name] && r.outcome != "ok" {
		r.outcome = "failed"
	}
	return r
}

// fallbackJSON finds the file the CLI names when it wrote a run to a
// fallback path.
var fallbackJSON = regexp.MustCompile(`written to (\S+\.json) instead`)

// judge fills a row from an ended run: its outcome, and the finished cells
// it printed that neither the history nor the JSON kept.
func (s *soak) judge(name string, p *proc, ended bool, db, js string) row {
	outcome, detail := classify(p, ended)
	h := readHistory(db)
	kept := max(h.cells, jsonCells(js))
	// When neither the history nor --json can be written, the CLI writes the
	// run elsewhere and names the file: those cells are kept too.
	if m := fallbackJSON.FindStringSubmatch(p.errText()); m != nil {
		kept = max(kept, jsonCells(m[1]))
		os.Remove(m[1])
	}
	return row{name: name, outcome: outcome, lost: max(0, p.finished()-kept), db: h.integrity, status: h.status,
		rssMB: p.rssMB(), took: p.ended.Sub(p.began).Round(10 * time.Millisecond), detail: detail}
}
