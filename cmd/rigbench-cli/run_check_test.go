package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Every flag the command line alone can judge is refused before anything
// starts (no simulator, no history file), with exit 2, one sentence and the
// usage line, and never the sentinel's own text.
func TestRunFlagErrorsBeforeStart(t *testing.T) {
	demo := []string{"run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20", "--no-telemetry"}
	const concurrencyMsg = "each level must be a whole number from 1 to 4096"
	cases := []struct {
		args []string
		want string
	}{
		// Issue 42 item 1: the number flags are the shared reader's text,
		// refused in its words with the flag's name, not the flag package's
		// "parse error".
		{append(demo, "--max-output", "abc"), "--max-output must be at least 1 token, e.g. 8192, not abc"},
		{append(demo, "--max-output", "-1"), "--max-output must be at least 1 token, e.g. 8192, not -1"},
		{append(demo, "--kv-capacity", "-1"), `--kv-capacity must be a positive number of tokens up to 2147483647, e.g. 36864, or empty for the server's, not "-1"`},
		{append(demo, "--max-duration", "soon"), `--max-duration must be from 5s (the shortest adaptive window) to 1h, not "soon"`},
		{append(demo, "--concurrency", "-2"), concurrencyMsg},
		{append(demo, "--concurrency", "1.5"), concurrencyMsg},
		{append(demo, "--concurrency", "max"), concurrencyMsg},
		{append(demo, "--concurrency", "1K"), concurrencyMsg},
		{append(demo, "--concurrency", "100000"), concurrencyMsg},
		{append(demo, "--duration", "-1s"), "--duration must be auto or a length from 1s to 1h, e.g. 30s, not -1s"},
		// Issue 12: a window too short to hold a request read as Over capacity; 1000h went unremarked.
		{append(demo, "--duration", "1ns"), "--duration must be auto or a length from 1s to 1h, e.g. 30s, not 1ns"},
		{append(demo, "--duration", "1000h"), "--duration must be auto or a length from 1s to 1h, e.g. 30s, not 1000h"},
		{append(demo, "--sim-speed", "1e9"), "--sim-speed must be a number from 1 (the card's own pace) to 1000, not 1e9"},
		// Issue 12: what run saved, import refused.
		{append(demo, "--name", strings.Repeat("n", 300)), "--name: name is 300 bytes long, at most 200 are allowed"},
		{append(demo, "--tags", "a,b,a"), `--tags: tags[2] repeats the tag "a"`},
		{append(demo, "--tags", strings.Repeat("t", 80)), "--tags: tags[0] is 80 bytes long, at most 64"},
		{append(demo, "--tags", strings.Repeat("t,", 70)+"u"), "--tags: tags has 71 entries, at most 64 are allowed"},
		{append(demo, "--notes", strings.Repeat("x", 70<<10)), "--notes: notes is 71680 bytes long, at most 65536"},
		{append(demo, "--kv-capacity", "9223372036854775807"), "--kv-capacity must be a positive number of tokens up to 2147483647"},
		{append(demo, "--duration", "soon"), "--duration must be auto or a length from 1s to 1h"},
		{append(demo, "--precision", "0%"), "--precision must be a percentage above 0"},
		{append(demo, "--precision", "one"), "--precision must be a percentage above 0"},
		{append(demo, "--max-duration", "2s"), "--max-duration must be from 5s"},
		{append(demo, "--duration", "30s", "--precision", "2%"), "--precision applies only to an auto window"},
		{append(demo, "--max-output", "0"), "--max-output must be at least 1"},
		{append(demo, "--sim-speed", "0"), "--sim-speed must be a number from 1"},
		{append(demo, "--sim-speed", "0.5"), "--sim-speed must be a number from 1"},
		{append(demo, "--sim-profile", "nope"), `no simulator profile "nope"`},
		{[]string{"run", "--endpoint", "http://127.0.0.1:1", "--sim-speed", "2"}, "--sim-speed applies only to the demo"},
		{[]string{"run", "--endpoint", "http://127.0.0.1:1", "--sim-profile", "tiny"}, "--sim-profile applies only to the demo"},
		{append(demo, "--json", "/nonexistent/dir/x.json"), "the folder /nonexistent/dir does not exist"},
	}
	for _, tc := range cases {
		db := filepath.Join(t.TempDir(), "history.db")
		code, _, stderr := runCLI(t, append(tc.args, "--db", db)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "\nusage: rigbench-cli run") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q and the usage", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, ": usage") {
			t.Errorf("%v: the usage sentinel leaked: %q", tc.args, stderr)
		}
		if strings.Contains(stderr, "simulated vLLM server") {
			t.Errorf("%v: the simulator started before the flags were checked: %q", tc.args, stderr)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("%v: the history was opened before the flags were checked", tc.args)
		}
	}
	// The other commands' usage errors end as cleanly.
	if code, _, stderr := runCLI(t, "show"); code != 2 || strings.Contains(stderr, ": usage") {
		t.Errorf("show: exit %d, stderr %q", code, stderr)
	}
}

// The tiny profile's max_model_len (2048) is below the default max output
// (8192): no cell can run, so the run stops before its first cell with the
// cause and the fix, records nothing, and exits 1 — not 0 with a matrix of
// "too long".
func TestRunNoCellCanRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, stdout, stderr := runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20",
		"--duration", "5s", "--concurrency", "1,4", "--db", db, "--no-telemetry")
	want := "--max-output 8192 leaves no room in max_model_len 2048: use --max-output 1024 or less"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 saying %q", code, stderr, want)
	}
	if strings.Contains(stdout, "Decode") || strings.Contains(stderr, "[1/") || strings.Contains(stderr, "saved as run") {
		t.Errorf("cells reached the output:\nstdout %s\nstderr %s", stdout, stderr)
	}
	if out := mustCLI(t, "runs", "--db", db); !strings.Contains(out, "No runs") {
		t.Errorf("the stopped run was recorded:\n%s", out)
	}

	// With the suggested max output the same plan runs, and the default
	// contexts the server is too small for are named, not dropped silently.
	code, stdout, stderr = runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20",
		"--duration", "5s", "--concurrency", "1", "--max-output", "1024", "--no-save", "--no-telemetry")
	if code != 0 || !strings.Contains(stdout, "Decode") ||
		!strings.Contains(stderr, "skipped: decode 16K, 32K, 64K, 128K; prefill 8K, 16K, 32K, 64K, 128K") {
		t.Errorf("max output 1024: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// The CLI words engine/session's plan check with its flags.
func TestNoCellRuns(t *testing.T) {
	tiny := rundoc.Server{MaxModelLen: 2048, KVCapacityTokens: 3264}
	cases := []struct {
		name string
		plan rundoc.Plan
		srv  rundoc.Server
		want string // "" = some cell runs
	}{
		{"one fits", rundoc.Plan{Contexts: []int{0, 1024}, Concurrency: []int{1, 4}, MaxOutput: 1024}, tiny, ""},
		{"prefill fits", rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, PrefillContexts: []int{1024}, MaxOutput: 8192}, tiny, ""},
		{"unknown limits", rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, MaxOutput: 1 << 20}, rundoc.Server{}, ""},
		{"no room", rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, MaxOutput: 8192}, tiny,
			"--max-output 8192 leaves no room in max_model_len 2048: use --max-output 1024 or less"},
		{"contexts too long", rundoc.Plan{Contexts: []int{1536}, Concurrency: []int{1}, MaxOutput: 1024}, tiny,
			"use --max-output 512 or less, or smaller contexts"},
		{"concurrency", rundoc.Plan{Contexts: []int{0, 1024}, Concurrency: []int{4, 8}, MaxOutput: 1024}, tiny,
			"too few for 4 requests of 1024 tokens (context + --max-output) at once: add lower --concurrency levels such as 1"},
		{"one request", rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{1}, MaxOutput: 4000}, rundoc.Server{KVCapacityTokens: 3264},
			"too few for one request of context 1K plus --max-output 4000: use --max-output 2240 or less"},
		{"prefill only", rundoc.Plan{PrefillContexts: []int{4096}}, rundoc.Server{KVCapacityTokens: 3264},
			"no prefill context fits this server (max_model_len not reported, KV cache 3,264 tokens): use --prefill 3263 or less"},
	}
	for _, tc := range cases {
		err := session.CheckPlan(tc.plan, tc.srv)
		var nothing *session.NothingRunsError
		if errors.As(err, &nothing) {
			err = planError(nothing)
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// removeDirAfter removes a folder once the output contains a marker, so a
// --json destination that was fine at the start is gone at the end.
type removeDirAfter struct {
	mu    sync.Mutex
	b     bytes.Buffer
	after string
	dir   string
	done  bool
}

func (r *removeDirAfter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := r.b.Write(p)
	if !r.done && strings.Contains(r.b.String(), r.after) {
		r.done = true
		os.RemoveAll(r.dir)
	}
	return n, err
}

// A --json file that still cannot be written at the end is reported by the
// user's path (not the temporary file's), after the history has been
// closed and the save confirmed.
func TestRunJSONWriteFailsAtEnd(t *testing.T) {
	base := t.TempDir()
	db := filepath.Join(base, "history.db")
	dir := filepath.Join(base, "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run.json")
	errw := &removeDirAfter{after: "[1/", dir: dir}
	e := &env{stdout: &bytes.Buffer{}, stderr: errw, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	code := execute(context.Background(), e, []string{"run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20",
		"--contexts", "0", "--concurrency", "1", "--prefill", "none", "--duration", "5s", "--max-output", "64",
		"--json", out, "--db", db, "--no-telemetry"})
	stderr := errw.b.String()
	if code != 1 || !strings.Contains(stderr, "cannot write "+out) || strings.Contains(stderr, ".rigbench-") {
		t.Errorf("exit %d, want 1 naming %s and no temporary file; stderr:\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "saved as run") {
		t.Errorf("the history save was not reported:\n%s", stderr)
	}
	if list := mustCLI(t, "runs", "--db", db); !strings.Contains(list, "complete") {
		t.Errorf("the run is not in the history:\n%s", list)
	}
}

// Without --api-key against a server that wants one, the error says a key
// is needed and where to give it, not that "the" key was wrong.
func TestRunAPIKeyMissing(t *testing.T) {
	hs := keyedSim(t)
	args := []string{"run", "--endpoint", hs.URL, "--contexts", "0", "--concurrency", "1", "--prefill", "none",
		"--max-output", "64", "--no-save", "--no-telemetry"}

	code, _, stderr := runCLI(t, args...)
	if want := "the server needs an API key: pass --api-key or set RIGBENCH_API_KEY"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("no key: exit %d, stderr %q; want %q", code, stderr, want)
	}

	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(k string) string {
		if k == "RIGBENCH_API_KEY" {
			return "wrong"
		}
		return ""
	}}
	if code := execute(context.Background(), e, args); code != 1 || !strings.Contains(errb.String(), "API key in RIGBENCH_API_KEY") {
		t.Errorf("wrong key from the environment: exit %d, stderr %q", code, errb.String())
	}
}

// A run that fails before its first event (the server lists a model, then
// refuses every completion) has nothing in the history, and run must not
// say it saved one.
func TestRunFailedBeforeStartClaimsNoSave(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m","max_model_len":4096}]}`)
		case "/v1/completions":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			http.NotFound(w, r)
		}
	}))
	defer hs.Close()
	db := filepath.Join(t.TempDir(), "history.db")
	code, _, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--contexts", "0", "--concurrency", "1",
		"--prefill", "none", "--max-output", "64", "--db", db, "--no-telemetry")
	if code == 0 || strings.Contains(stderr, "saved as run") {
		t.Errorf("exit %d, stderr:\n%s\nwant a failure that claims no save", code, stderr)
	}
	if out := mustCLI(t, "runs", "--db", db); !strings.Contains(out, "No runs") {
		t.Errorf("runs after a run that never started:\n%s", out)
	}
}

// When the history could not keep a whole run, the sentence says where the
// whole run is: the --json file, else a copy in the temp folder that
// imports again, else the table printed above (issue 12 #8).
func TestWhereTheRunIs(t *testing.T) {
	t.Parallel()
	run := &rundoc.Run{Schema: rundoc.Schema, UUID: "0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c", Status: rundoc.RunComplete,
		CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		Plan:      rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 30, MaxOutput: 16},
		Cells:     []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50}}}
	dir := t.TempDir()
	if got := whereTheRunIs(run, "/x/run.json", nil, dir, ""); got != "the whole run is in /x/run.json" {
		t.Errorf("--json written: %q", got)
	}
	got := whereTheRunIs(run, "/full/run.json", errors.New("no space left on device"), dir, " --db 'my history.db'")
	fallback := filepath.Join(dir, "rigbench-run-0b6f7d5e.json")
	if !strings.Contains(got, "the whole run was written to "+fallback+" instead (/full/run.json could not be written: no space left on device)") ||
		!strings.Contains(got, "rigbench-cli import "+vllm.Quote(fallback)+" --db 'my history.db'") {
		t.Errorf("--json failed: %q", got)
	}
	f, err := os.Open(fallback)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if back, err := rundoc.ReadRun(f); err != nil || len(back.Cells) != 1 {
		t.Errorf("the fallback copy does not import: %v", err)
	}
	if got := whereTheRunIs(run, "", nil, filepath.Join(dir, "missing"), ""); !strings.HasPrefix(got, "every cell is in the table above, and a copy could not be written to") {
		t.Errorf("nowhere to write: %q", got)
	}
	if got := whereTheRunIs(&rundoc.Run{}, "", nil, dir, ""); got != "no cell had finished, so no measurement was lost" {
		t.Errorf("no cells: %q", got)
	}
}
