package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// noControls fails when out holds a byte a terminal acts on: ESC, BEL or
// NUL (CR and the like are checked by internal/termtext's own tests).
func noControls(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range []string{"\x1b", "\x07", "\x00"} {
		if strings.Contains(out, c) {
			t.Errorf("%s prints %q raw:\n%q", what, c, out)
		}
	}
}

// A run imported with ESC, BEL and NUL in its name, tags, notes and error
// prints them escaped in import, runs, show and delete.
func TestImportedControlCharactersAreEscaped(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	mustCLI(t, "import", refCopy(t, dir), "--db", db)
	var doc map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "export", firstUUID(t, db), "--db", db)), &doc); err != nil {
		t.Fatal(err)
	}
	doc["uuid"] = "11111111-2222-3333-4444-555555555555"
	doc["name"] = "evil\x1b]0;pwned\x07\x00name"
	doc["notes"] = "note\x1b[2Jcleared"
	doc["tags"] = []string{"t\x1b[31mred"}
	doc["error"] = "server said \x1b[5mblink"
	b, _ := json.Marshal(doc)
	evil := filepath.Join(dir, "evil.json")
	if err := os.WriteFile(evil, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustCLI(t, "import", evil, "--db", db)
	noControls(t, "import", out)
	if !strings.Contains(out, `evil\x1b]0;pwned\a\x00name`) {
		t.Errorf("import does not show the name escaped: %q", out)
	}
	noControls(t, "runs", mustCLI(t, "runs", "--db", db))
	show := mustCLI(t, "show", "1111", "--db", db)
	noControls(t, "show", show)
	for _, want := range []string{`note\x1b[2Jcleared`, `t\x1b[31mred`, `server said \x1b[5mblink`} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	noControls(t, "delete", mustCLI(t, "delete", "1111", "--yes", "--db", db))
}

// A server whose model id and error messages hold control characters: the
// progress line, the results and the final error show them escaped.
func TestServerControlCharactersAreEscaped(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"m\u001b[2J","object":"model","max_model_len":4096}]}`))
	})
	mux.HandleFunc("/tokenize", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"message":"boom\u001b]0;owned\u0007\u0000"}}`))
	})
	hs := httptest.NewServer(mux)
	defer hs.Close()
	_, stdout, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--contexts", "0", "--concurrency", "1",
		"--prefill", "none", "--duration", "1s", "--max-output", "16", "--no-save", "--no-telemetry")
	noControls(t, "run's stdout", stdout)
	noControls(t, "run's stderr", stderr)
	if !strings.Contains(stderr, `boom\x1b]0;owned\a\x00`) {
		t.Errorf("the server's error does not show escaped:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// The progress lines show a server's model id, engine and version, a
// cell's failure reason and a progress message escaped.
func TestProgressEscapesServerText(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b)
	run := &rundoc.Run{Server: rundoc.Server{Model: "m\x1b[2J", Engine: "vllm\x07", Version: "0.1\x00"}}
	cell := &rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusFailed, Reason: "boom\x1b]0;owned\x07"}
	p.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: run, Total: 1})
	p.Observe(rundoc.Event{Kind: rundoc.EventCellProgress, Cell: cell, Total: 1, Message: "waiting\x1b[1A"})
	p.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Cell: cell, Total: 1})
	noControls(t, "progress", b.String())
	for _, want := range []string{`m\x1b[2J`, `boom\x1b]0;owned\a`, `waiting\x1b[1A`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, b.String())
		}
	}
}
