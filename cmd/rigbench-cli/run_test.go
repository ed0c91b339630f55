package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// keyedSim serves the tiny simulator profile at speed 10 on 127.0.0.1,
// wanting the API key "secret-key-123".
func keyedSim(t *testing.T) *httptest.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed, cfg.APIKey = p, 10, "secret-key-123"
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs
}

// TestRunEndpointWritesJSON runs a tiny plan against the simulator over
// 127.0.0.1 and checks the printed matrix and the run document.
func TestRunEndpointWritesJSON(t *testing.T) {
	hs := keyedSim(t)

	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	code, stdout, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--api-key", "secret-key-123",
		"--contexts", "0,1K", "--concurrency", "1,4", "--prefill", "1K", "--duration", "5s",
		"--max-output", "128", "--json", out, "--no-save", "--no-telemetry")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Decode: total tok/s", "context \\ N", "Prefill: prompt tok/s", "1K"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "[5/5]") || !strings.Contains(stderr, "ETA") {
		t.Errorf("no progress lines in stderr:\n%s", stderr)
	}
	run := readRunFile(t, out)
	if run.Schema != rundoc.Schema || len(run.Cells) != 5 || run.Plan.Contexts[1] != 1024 || run.Server.MaxModelLen == 0 {
		t.Errorf("run %+v", run)
	}
	raw, _ := os.ReadFile(out)
	if strings.Contains(string(raw), "secret-key-123") || strings.Contains(stderr+stdout, "secret-key-123") {
		t.Error("the API key leaked into the output")
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run"}, // no target
		{"run", "--endpoint", "http://127.0.0.1:1", "--demo"},
		{"run", "--endpoint", "http://127.0.0.1:1", "--concurrency", "0"},
		{"run", "--endpoint", "http://127.0.0.1:1", "--contexts", "12Q"},
		{"run", "--endpoint", "http://127.0.0.1:1", "extra"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "usage:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, _, stderr := runCLI(t, "run", "--endpoint", "http://127.0.0.1:1", "--no-save", "--no-telemetry")
	if code != 1 || !strings.Contains(stderr, "cannot reach the server at http://127.0.0.1:1") {
		t.Errorf("dead endpoint: exit %d, stderr %q", code, stderr)
	}
}

func TestRunDemoCancelKeepsCells(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	ctx, cancel := context.WithCancel(context.Background())
	var errb strings.Builder
	e := &env{stdout: &strings.Builder{}, stderr: &cancelAfter{w: &errb, after: "[2/", cancel: cancel},
		stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code := execute(ctx, e, []string{"run", "--demo", "--sim-profile", "tiny", "--sim-speed", "10",
		"--contexts", "0", "--concurrency", "1,2,4", "--prefill", "none", "--duration", "10s",
		"--max-output", "64", "--json", out, "--no-save"})
	if code != 130 {
		t.Fatalf("exit %d, want 130 after cancel; stderr:\n%s", code, errb.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("Ctrl-C must still write the JSON: %v", err)
	}
	defer f.Close()
	run, err := rundoc.ReadRun(f)
	if err != nil || run.Status != rundoc.RunCancelled || len(run.Cells) == 0 || !run.Simulated {
		t.Fatalf("run %v status %v cells %d err %v", run != nil, run.Status, len(run.Cells), err)
	}
}

// cancelAfter cancels once the output contains a marker.
type cancelAfter struct {
	w      *strings.Builder
	after  string
	cancel func()
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if strings.Contains(c.w.String(), c.after) {
		c.cancel()
	}
	return n, err
}

// TestRunSavesToHistory: by default the run lands in the history, where
// `show` finds it.
func TestRunSavesToHistory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, _, stderr := runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "10", "--contexts", "0",
		"--concurrency", "1", "--prefill", "none", "--duration", "5s", "--max-output", "64", "--db", db,
		"--name", "saved-demo", "--no-telemetry")
	if code != 0 || !strings.Contains(stderr, "saved as run") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "runs", "--db", db)
	if code != 0 || !strings.Contains(stdout, "saved-demo") {
		t.Fatalf("runs: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// cellsWhenPrinted counts, each time a finished-cell line reaches stderr,
// the cells the history already holds.
// finishedLine matches a progress line that reports a finished cell.
var finishedLine = regexp.MustCompile(`\s(Valid|Requests queued|Over capacity|Exceeds model length|Failed|Cancelled):`)

type cellsWhenPrinted struct {
	mu     sync.Mutex
	b      strings.Builder
	db     string
	short  []string // lines printed before their cell was saved
	seen   int
	failed error
}

func (c *cellsWhenPrinted) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	for _, line := range strings.Split(string(p), "\n") {
		// A finished cell's line ends in its status; on a loaded machine a
		// short demo cell may read Requests queued rather than Valid.
		if !strings.HasPrefix(line, "[") || !finishedLine.MatchString(line) {
			continue
		}
		c.seen++
		raw, err := sql.Open("sqlite", "file:"+c.db+"?mode=ro&_pragma=busy_timeout(5000)")
		if err != nil {
			c.failed = err
			continue
		}
		var n int
		if err := raw.QueryRow("SELECT count(*) FROM cells").Scan(&n); err != nil {
			c.failed = err
		}
		raw.Close()
		if n < c.seen {
			c.short = append(c.short, fmt.Sprintf("%q with %d cells saved", line, n))
		}
	}
	return len(p), nil
}

// A cell the progress line reports finished is already in the history, so
// a kill -9 right after the line cannot lose it (the progress observer used
// to run before the history's).
func TestFinishedCellIsSavedBeforeItIsPrinted(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	w := &cellsWhenPrinted{db: db}
	e := &env{stdout: &strings.Builder{}, stderr: w, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code := execute(context.Background(), e, []string{"run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20",
		"--contexts", "0", "--concurrency", "1,2", "--prefill", "none", "--duration", "2s", "--max-output", "64",
		"--db", db, "--no-telemetry"})
	w.mu.Lock()
	defer w.mu.Unlock()
	if code != 0 || w.seen != 2 || w.failed != nil {
		t.Fatalf("exit %d, %d finished lines, %v:\n%s", code, w.seen, w.failed, w.b.String())
	}
	for _, s := range w.short {
		t.Errorf("printed before saved: %s", s)
	}
}

// TestRunContextAboveModelLength is issue 30 item 5: one context above the
// server's max_model_len no longer refuses the whole run (it printed the
// refusal twice, exited 1 and wrote no JSON). Its cells, decode and
// prefill, are Exceeds model length, named once before the run, and the
// rest runs.
func TestRunContextAboveModelLength(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	code, stdout, stderr := runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20", "--contexts", "0,4K",
		"--concurrency", "1", "--prefill", "1K,4K", "--duration", "5s", "--max-output", "64", "--no-save", "--no-telemetry",
		"--json", out, "--", "--max-model-len", "2048")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "max_model_len (2K) is too short for"); n != 1 ||
		!strings.Contains(stderr, "decode context 4K (with max output 64); prefill context 4K") {
		t.Errorf("the skipped cells are named %d times, want once:\n%s", n, stderr)
	}
	// The prefill table has the server's own prompt rate beside RigBench's
	// (issue 28 item 3).
	if !strings.Contains(stdout, "server prompt tok/s") {
		t.Errorf("the prefill table has no server prompt tok/s:\n%s", stdout)
	}
	run := readRunFile(t, out)
	for _, want := range []struct {
		phase  rundoc.Phase
		c      int
		status rundoc.Status
	}{{rundoc.PhaseDecode, 0, rundoc.StatusValid}, {rundoc.PhaseDecode, 4096, rundoc.StatusExceedsLength},
		{rundoc.PhasePrefill, 1024, rundoc.StatusValid}, {rundoc.PhasePrefill, 4096, rundoc.StatusExceedsLength}} {
		if c := run.Find(want.phase, want.c, 1); c == nil || c.Status != want.status {
			t.Errorf("%s %s: %+v, want %s", want.phase, rundoc.ContextLabel(want.c), c, want.status)
		}
	}
}

// readRunFile reads the run document a command wrote at path.
func readRunFile(t *testing.T, path string) *rundoc.Run {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := rundoc.ReadRun(f)
	if err != nil {
		t.Fatalf("the written run %s does not read back: %v", path, err)
	}
	return run
}
