package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// executeWithin runs execute in the background and fails the test if it has
// not returned within limit.
func executeWithin(t *testing.T, ctx context.Context, e *env, args []string, limit time.Duration) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- execute(ctx, e, args) }()
	select {
	case code := <-done:
		return code
	case <-time.After(limit):
		t.Fatalf("rigbench-cli %s did not return %v after Ctrl-C", strings.Join(args, " "), limit)
		return -1
	}
}

// A command stuck where it does not look at the context (a render or a
// parser in a long loop) is abandoned one second after Ctrl-C, with one
// line and the interrupt status.
func TestInterruptAbandonsAStuckCommand(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	register(&command{name: "test-stuck", run: func(context.Context, *env, []string) error {
		<-release // ignores its context, as a busy loop would
		return nil
	}})
	defer delete(commands, "test-stuck")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	time.AfterFunc(50*time.Millisecond, cancel)
	began := time.Now()
	code := executeWithin(t, ctx, e, []string{"test-stuck"}, 5*time.Second)
	if code != exitInterrupted || errb.String() != "rigbench-cli test-stuck: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want %d and one line", code, errb.String(), exitInterrupted)
	}
	if took := time.Since(began); took > stopGrace+3*time.Second { // margin for a loaded machine
		t.Errorf("took %v after the signal", took)
	}
}

// export and import look at the context: after Ctrl-C they stop with the
// interrupt status and leave no file (or half file) behind.
func TestInterruptStopsExportAndImport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	ref := refCopy(t, dir)
	mustCLI(t, "import", ref, "--db", db)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out.html")
	var stdout, errb bytes.Buffer
	e := &env{stdout: &stdout, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	uuid := firstUUID(t, db)
	if code := executeWithin(t, ctx, e, []string{"export", uuid, "--format", "html", "-o", out, "--db", db}, 5*time.Second); code != exitInterrupted {
		t.Errorf("export after Ctrl-C: exit %d, stderr %q", code, errb.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 { // history.db and the reference CSV
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("export after Ctrl-C left %v", names)
	}
	errb.Reset()
	if code := executeWithin(t, ctx, e, []string{"import", ref, "--db", filepath.Join(dir, "other.db")}, 5*time.Second); code != exitInterrupted ||
		strings.Contains(errb.String(), "not imported") {
		t.Errorf("import after Ctrl-C: exit %d, stderr %q", code, errb.String())
	}
}

// firstUUID is the id of the first run in the history at db.
func firstUUID(t *testing.T, db string) string {
	t.Helper()
	var list []runsJSON
	if err := json.Unmarshal([]byte(mustCLI(t, "runs", "--json", "--db", db)), &list); err != nil || len(list) == 0 {
		t.Fatalf("runs --json: %v, %d runs", err, len(list))
	}
	return list[0].UUID
}
