package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
)

// TestTuneQualityDemo: `tune --quality gsm8k:200` on the demo's own items
// prints the quality column and a verdict that passes over the lossy
// 4-bit cache; each variant's run keeps its probe in the history, `show`
// prints it, and a run exported as JSON and imported elsewhere keeps it
// byte for byte; `tune --resume ID` alone asks no probe again.
func TestTuneQualityDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo sweep of three variants at speed 5 (about 20 s): skipped with -short (make test runs it)")
	}
	dir := t.TempDir()
	db, out := filepath.Join(dir, "h.db"), filepath.Join(dir, "sweep.json")
	// A base whose KV cache holds 4 streams of 4K + 1K: fp8 holds 8 and
	// int4 16 (engine/tune's TestQualitySweepPassesOverTheLossyVariant).
	code, stdout, stderr := runCLI(t, "tune", "--demo", "--sim-speed", "5", "--vary", "kv-cache-dtype=auto,fp8,int4_per_token_head",
		"--contexts", "4K", "--concurrency", "4,8,16", "--objective", "most-streams@4K:30s", "--duration", "3s",
		"--quality", "gsm8k:200", "--no-telemetry", "--db", db, "--json", out, "--", "--gpu-memory-utilization", "0.64", "--max-model-len", "16384")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"quality (gsm8k:200)", ": baseline", ": keeps", ": loses", "`--kv-cache-dtype int4_per_token_head`: 16 streams",
		"not recommended", "`--kv-cache-dtype fp8`: no significant change in quality"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Count(stderr, ": quality probe") != 3 {
		t.Errorf("want a probe line per variant:\n%s", stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := tune.ReadDoc(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if doc.Best == nil || *doc.Best != 1 || doc.Variants[2].Quality == nil || doc.Variants[2].Quality.Verdict != tune.QualityLost ||
		doc.Variants[2].Quality.Comparison == nil || doc.Variants[0].Quality.Accuracy == nil {
		t.Fatalf("the sweep document's quality: best %v, %+v", doc.Best, doc.Variants[2].Quality)
	}
	int4 := doc.Variants[2]

	// The history keeps the probe with its pairing; show prints it.
	code, shown, errOut := runCLI(t, "show", int4.RunID, "--db", db)
	if code != 0 || !strings.Contains(shown, "against the baseline: −") || !strings.Contains(shown, "baseline: your flags (run "+rundoc.ShortID(doc.Variants[0].RunID)+")") {
		t.Errorf("show exit %d:\n%s\n%s", code, shown, errOut)
	}
	// Export, import into another history, export again: the same file.
	first, second, md := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "r.md")
	other := filepath.Join(dir, "other.db")
	for _, args := range [][]string{
		{"export", int4.RunID, "--format", "json", "-o", first, "--db", db},
		{"import", first, "--db", other},
		{"export", int4.RunID, "--format", "json", "-o", second, "--db", other},
		{"export", int4.RunID, "--format", "md", "-o", md, "--db", other},
	} {
		if code, o, e := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, o, e)
		}
	}
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if string(a) != string(b) {
		t.Error("the run's JSON changed through an export and an import")
	}
	run, err := rundoc.ReadRun(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := quality.FromRun(run.Quality)
	if err != nil || c.Baseline == nil || c.Baseline.Task == nil || c.Baseline.Task.McNemarP != int4.Quality.Comparison.McNemarP {
		t.Errorf("the imported run's quality %+v (%v), want the sweep's pairing", c, err)
	}
	if m, _ := os.ReadFile(md); !strings.Contains(string(m), "## Quality") {
		t.Error("the Markdown report of the imported run has no Quality section")
	}

	// The sweep resumes from its id alone: every variant, probe included,
	// comes from the history.
	code, again, errOut := runCLI(t, "tune", "--resume", doc.SweepID, "--db", db, "--no-telemetry")
	if code != 0 || strings.Count(errOut, "already measured") != 3 || strings.Contains(errOut, "quality probe") {
		t.Errorf("resume exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(again, doc.Verdict[:60]) {
		t.Errorf("the resumed verdict differs:\n%s\nwant %s", again, doc.Verdict)
	}
}

// TestRunQualityRefusals: a bad probe is a usage error before anything
// starts, and --quality-dataset needs --quality.
func TestRunQualityRefusals(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--demo", "--no-save", "--quality", "gsm9k:5"},
		{"run", "--demo", "--no-save", "--quality-dataset", "x.jsonl"},
		{"tune", "--demo", "--no-save", "--vary", "kv-cache-dtype=auto,fp8", "--contexts", "1K", "--concurrency", "1", "--quality", "gsm8k:0"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "quality") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
