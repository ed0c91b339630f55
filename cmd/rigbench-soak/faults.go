package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math"
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

// slowFault is a fault whose old cost was a wait of minutes of card time:
// its simulator runs at its own pace (speed 1), so that a wait scaled
// down by the speed cannot pass for a quick answer. metrics, when set,
// answers /metrics in place of the simulator.
type slowFault struct {
	fault
	metrics func(fs *faultServer, w http.ResponseWriter, r *http.Request)
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

// nanMetrics is issue 36 item 1's server: its /metrics is the
// simulator's with the generated-token counter and the waiting gauge NaN
// and the KV-cache gauge +Inf, as Prometheus text allows. Each run read
// the counter as -9223372036854775808 tokens and lost itself at the save
// on the NaN, and the waiting gauge, never reading 0, held each cell for
// the idle wait's 60 s.
var nanMetrics = spoiledMetrics("whose /metrics says NaN", map[string]string{
	"vllm:generation_tokens_total": "NaN", "vllm:num_requests_waiting": "NaN", "vllm:kv_cache_usage_perc": "+Inf"})

// infRunning is the same with the running gauge +Inf: a queue the server
// does not report in a number must not hold a cell either (the window's
// steady-state gate compares it with the streams in flight).
var infRunning = spoiledMetrics("whose running gauge is +Inf", map[string]string{"vllm:num_requests_running": "+Inf"})

// spoiledMetrics is a server whose /metrics is the simulator's with the
// value of each series named in values replaced by its text there.
func spoiledMetrics(name string, values map[string]string) slowFault {
	return slowFault{fault: fault{name: name, before: math.MaxInt64},
		metrics: func(fs *faultServer, w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			fs.sim.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			for series, v := range values {
				re := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(series) + `\{[^}]*\}) \S+$`)
				body = re.ReplaceAll(body, []byte("${1} "+v))
			}
			w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
			w.WriteHeader(rec.Code)
			w.Write(body)
		}}
}

// pastMaxTokens is issue 36 item 9's server: every completion streams a
// token every 20 ms until the client leaves, whatever max_tokens says.
// The first 2-token request of a run waited out its ten-minute
// first-request limit; its third token proves at once that the server
// ignores the limit.
var pastMaxTokens = slowFault{fault: fault{name: "streaming past max_tokens",
	handle: func(_ *faultServer, w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for {
			fmt.Fprintf(w, "data: {\"id\":\"cmpl-soak\",\"object\":\"text_completion\",\"created\":0,\"model\":%q,"+
				"\"choices\":[{\"index\":0,\"text\":\" a\",\"logprobs\":null,\"finish_reason\":null}]}\n\n", req.Model)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}}}

// faultServer is the simulator (tiny profile, speed 50 unless a slow
// fault's, so the run's stuck limits scale down with it) behind one fault.
type faultServer struct {
	http  *httptest.Server
	sim   http.Handler
	f     fault
	seen  atomic.Int64
	close func()
	// metrics answers /metrics in place of the simulator, when set.
	metrics func(fs *faultServer, w http.ResponseWriter, r *http.Request)
}

func newFaultServer(f fault) (*faultServer, error) {
	return newSlowFaultServer(slowFault{fault: f}, 50)
}

// newSlowFaultServer is newFaultServer at the simulator speed given, its
// /metrics answered by f.metrics when set.
func newSlowFaultServer(f slowFault, speed float64) (*faultServer, error) {
	cfg := sim.DefaultConfig()
	p, err := sim.ProfileByName("tiny")
	if err != nil {
		return nil, err
	}
	cfg.Profile, cfg.Speed = p, speed
	s, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	fs := &faultServer{sim: s.Handler(), f: f.fault, metrics: f.metrics}
	fs.http = httptest.NewServer(http.HandlerFunc(fs.serve))
	fs.close = func() { fs.http.CloseClientConnections(); fs.http.Close(); s.Close() }
	return fs, nil
}

func (fs *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	if fs.metrics != nil && r.URL.Path == "/metrics" {
		fs.metrics(fs, w, r)
		return
	}
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
