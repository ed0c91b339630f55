package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// freezingSim serves the tiny simulator at speed 10 and freezes it, as
// `kill -STOP` or `docker pause` would, when the first request of a decode
// window (max_tokens 64: warm-ups and prefill send 1, the options probe 2)
// arrives. frozeAt reports when.
func freezingSim(t *testing.T) (hs *httptest.Server, frozeAt func() time.Time) {
	t.Helper()
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed, cfg.Seed = p, 10, 1
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var at atomic.Int64
	h := s.Handler()
	hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				MaxTokens int `json:"max_tokens"`
			}
			if json.Unmarshal(body, &req) == nil && req.MaxTokens == 64 && at.CompareAndSwap(0, time.Now().UnixNano()) {
				s.Freeze()
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs, func() time.Time { return time.Unix(0, at.Load()) }
}

// TestFrozenServerRunResumes is issue 35's frozen server through the CLI:
// the run whose server froze in decode 0×1 ends with the cell Failed, the
// moment and why (on its row of the Markdown export), the sentence that it stopped
// producing tokens and the --resume command, as for a server that died;
// no cell reads Over capacity; `run --resume` against a server started
// again measures the failed cell and the rest.
func TestFrozenServerRunResumes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	hs, frozeAt := freezingSim(t)
	code, _, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--db", db, "--no-telemetry",
		"--contexts", "0,512", "--concurrency", "1,2", "--prefill", "512", "--duration", "5s", "--max-output", "64")
	took := time.Since(frozeAt())
	m := regexp.MustCompile(`stopped producing tokens during cell decode 0×1 \(before the cell's first token\): no token came for [^;]+; it did not answer /metrics either[^;]*; 1 of 5 cells were measured and kept; start the server again and run the rest with: rigbench-cli run --endpoint \S+ --resume ([0-9a-f]{8})`).FindStringSubmatch(stderr)
	if code != 1 || m == nil {
		t.Fatalf("exit %d, want 1 with the stall and the resume command:\n%s", code, stderr)
	}
	t.Logf("the CLI ended %v after the freeze", took.Round(time.Millisecond))
	id := m[1]
	// show says why the run stopped and no cell reads Over capacity; the
	// Markdown export keeps the failed cell's reason on its row.
	code, out, stderr := runCLI(t, "show", id, "--db", db)
	if code != 0 || !strings.Contains(out, "stopped producing tokens during cell decode 0×1") || strings.Contains(out, string(rundoc.StatusOverCapacity)) {
		t.Errorf("show: exit %d, want the stall and no Over capacity:\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "export", id, "--db", db, "--format", "markdown")
	if code != 0 || !regexp.MustCompile(`\| Failed \|.*the server stopped producing tokens before the cell's first token`).MatchString(out) {
		t.Errorf("markdown export: exit %d, want the failed cell's reason on its row:\n%s%s", code, out, stderr)
	}

	again := dyingSim(t, 0)
	code, _, stderr = runCLI(t, "run", "--endpoint", again.URL, "--db", db, "--no-telemetry", "--resume", id)
	if code != 0 || !strings.Contains(stderr, "resuming: 1 of 5 cells are kept as measured, 4 to measure") {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "after.json")
	if code, _, stderr := runCLI(t, "export", id, "--db", db, "-o", path); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	after := readRunFile(t, path)
	if after.Status != rundoc.RunComplete || len(after.Cells) != 5 {
		t.Fatalf("resumed run %s with %d cells, want complete with 5", after.Status, len(after.Cells))
	}
	for _, c := range after.Cells {
		if !c.Status.Ran() {
			t.Errorf("%s after the resume: %s %s", c.Label(), c.Status, c.Reason)
		}
	}
}
