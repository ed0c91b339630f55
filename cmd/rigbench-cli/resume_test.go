package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/store"
)

// dyingSim serves the tiny simulator at speed 10 and kills it (the exit
// fault) when its dieAt-th completion request arrives; dieAt 0 never.
func dyingSim(t *testing.T, dieAt int64) *httptest.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed, cfg.Seed = p, 10, 1
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	h := s.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" && n.Add(1) == dieAt {
			s.Kill()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs
}

// TestRunResumeFillsInTheMissingCells (issue 29): a run whose server dies
// stops at once, saying what it kept and the command that measures the
// rest; `run --resume ID` against a server started again measures only the
// cells that have no result, into the same run, and the kept cells export
// byte for byte as before.
func TestRunResumeFillsInTheMissingCells(t *testing.T) {
	if testing.Short() {
		t.Skip("demo runs in real time, killed and resumed (5 s or more): skipped with -short (make test runs it)")
	}
	db := filepath.Join(t.TempDir(), "history.db")
	plan := []string{"--contexts", "0,512", "--concurrency", "1,2,4", "--prefill", "512", "--duration", "5s", "--max-output", "64"}
	hs := dyingSim(t, 8)
	code, _, stderr := runCLI(t, append([]string{"run", "--endpoint", hs.URL, "--db", db, "--no-telemetry"}, plan...)...)
	m := regexp.MustCompile(`stopped answering .*; (\d+) of 7 cells were measured and kept; start the server again and run the rest with: rigbench-cli run --endpoint \S+ --resume ([0-9a-f]{8})`).FindStringSubmatch(stderr)
	if code != 1 || m == nil {
		t.Fatalf("exit %d, want 1 with the resume command:\n%s", code, stderr)
	}
	id := m[2]
	export := func(name string) *rundoc.Run {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		if code, _, stderr := runCLI(t, "export", id, "--db", db, "-o", path); code != 0 {
			t.Fatalf("export: %s", stderr)
		}
		return readRunFile(t, path)
	}
	before := export("before.json")
	kept := map[string]string{}
	for _, c := range before.Cells {
		if c.Status != rundoc.StatusFailed && c.Status != rundoc.StatusCancelled {
			b, _ := json.Marshal(c)
			kept[c.Label()] = string(b)
		}
	}
	if len(kept) == 0 || len(kept) >= 7 || strconv.Itoa(len(kept)) != m[1] {
		t.Fatalf("%d cells kept of the first attempt (the message says %s), want some but not all", len(kept), m[1])
	}

	if code, _, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--db", db, "--resume", id, "--contexts", "0"); code != 2 || !strings.Contains(stderr, "--contexts belongs to a new run") {
		t.Errorf("--resume with a plan flag: exit %d\n%s", code, stderr)
	}

	again := dyingSim(t, 0)
	code, _, stderr = runCLI(t, "run", "--endpoint", again.URL, "--db", db, "--no-telemetry", "--resume", id)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if want := "resuming: " + m[1] + " of 7 cells are kept as measured"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	after := export("after.json")
	if after.UUID != before.UUID || after.Status != rundoc.RunComplete || len(after.Cells) != 7 {
		t.Fatalf("resumed run %s %s with %d cells, want the same run complete with 7", after.UUID, after.Status, len(after.Cells))
	}
	for _, c := range after.Cells {
		b, _ := json.Marshal(c)
		if was, ok := kept[c.Label()]; ok && was != string(b) {
			t.Errorf("kept cell %s changed:\n%s\n%s", c.Label(), was, b)
		}
		if c.Status == rundoc.StatusFailed || c.Status == rundoc.StatusCancelled {
			t.Errorf("%s still %s after the resume: %s", c.Label(), c.Status, c.Reason)
		}
	}
	if code, _, stderr := runCLI(t, "run", "--endpoint", again.URL, "--db", db, "--resume", id); code != 1 || !strings.Contains(stderr, "nothing left to measure") {
		t.Errorf("resuming a complete run: exit %d\n%s", code, stderr)
	}
}

// A run another RigBench is still recording cannot be resumed: the two
// would overwrite each other's cells.
func TestRunResumeRefusesARunInProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := db.Recorder()
	running := &rundoc.Run{Schema: rundoc.Schema, UUID: "5e0d1c2b-3a49-4f58-9e67-8d7c6b5a4f3e", Origin: rundoc.OriginMeasured,
		Status: rundoc.RunRunning, CreatedAt: time.Now().UTC().Truncate(time.Second),
		Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 5, MaxOutput: 64}}
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: running})
	if !rec.Saved() {
		t.Fatalf("the recorder did not store the run: %v", rec.Err())
	}
	code, _, stderr := runCLI(t, "run", "--endpoint", "http://127.0.0.1:1", "--db", path, "--resume", "5e0d1c2b")
	if code != 1 || !strings.Contains(stderr, "still being measured by another RigBench") {
		t.Errorf("exit %d, want 1 refusing the run in progress:\n%s", code, stderr)
	}
}
