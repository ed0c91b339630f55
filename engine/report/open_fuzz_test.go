package report_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
)

// OpenRun reads files from anywhere: whatever a file holds, it must not
// panic, and every error is a sentence that starts "the file NAME", which
// both front ends show as it is.
func FuzzOpenRun(f *testing.F) {
	for _, s := range []string{"", "{", `{"schema":"rigbench.run/v1"}`, `{"schema":"rigbench.run/v1","uuid":"x"`,
		`{"schema":"something.else/v9"}`, `{"schema":"rigbench.run/v2"}`, `[1,2]`, `{"schema":null}`, "\xff",
		"phase,context_tokens\n", "\xef\xbb\xbf  \n",
		// The seed tool's layout with a burst cell (ldb_burst.go).
		`{"metadata":{"version":"0.4.29"},"results":[],"burst_results":[{"concurrency":2,"context_tokens":0,` +
			`"benchmark_mode":"request-count","request_count_target":8,"aggregate_tps":9,"request_latency_p50":0.5}]}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "run.json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := report.OpenRun(context.Background(), p)
		if err == nil {
			if r == nil {
				t.Fatal("no run and no error")
			}
			return
		}
		if !strings.HasPrefix(err.Error(), "the file run.json ") {
			t.Errorf("error %q does not start with \"the file run.json\"", err)
		}
	})
}

// A file is read by what it holds: a CSV named .txt reads, a .json that
// holds no JSON is called no run file (not a bad CSV), and a list of runs
// gets its own sentence.
func TestOpenRunSniffsContent(t *testing.T) {
	dir := t.TempDir()
	csv, err := os.ReadFile("testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "ref.txt")
	os.WriteFile(p, csv, 0o600)
	r, err := report.OpenRun(context.Background(), p)
	if err != nil || len(r.Cells) == 0 || r.CreatedAt.IsZero() {
		t.Fatalf("CSV named .txt: %v", err)
	}
	notJSON := filepath.Join(dir, "ref.json")
	os.WriteFile(notJSON, csv, 0o600)
	if _, err := report.OpenRun(context.Background(), notJSON); err == nil || !strings.Contains(err.Error(), "not a JSON document") {
		t.Errorf("CSV named .json: %v", err)
	}
	list := filepath.Join(dir, "list.csv")
	os.WriteFile(list, []byte("\xef\xbb\xbf [{}]"), 0o600)
	if _, err := report.OpenRun(context.Background(), list); err == nil || !strings.Contains(err.Error(), "a list, not one run") {
		t.Errorf("a list: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := report.OpenRun(ctx, p); err != context.Canceled {
		t.Errorf("cancelled read: %v, want context.Canceled", err)
	}
	if _, err := report.OpenRun(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("a folder: %v", err)
	}
}
