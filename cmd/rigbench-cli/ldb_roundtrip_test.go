package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const cliLDBFixture = "../../engine/report/testdata/llm-decode-bench-0.4.29_sim-rtx3060.json"

// A run measured here, exported as an llm-decode-bench file and imported
// back, is the run already in the history, not a second one; imported into
// another history it is the same run (its JSON export is identical). The
// seed tool's own file, exported back in its layout, is also recognised.
func TestLDBExportImportIsTheSameRun(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	code, _, stderr := runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20", "--contexts", "0",
		"--concurrency", "1,2", "--prefill", "512", "--duration", "2s", "--max-output", "64", "--db", db, "--no-telemetry")
	if code != 0 {
		t.Fatalf("demo run: exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`saved as run (\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run id in stderr:\n%s", stderr)
	}
	id := strings.TrimRight(m[1], ".,;")
	file := filepath.Join(dir, "run-ldb.json")
	mustCLI(t, "export", id, "--format", "llm-decode-bench", "-o", file, "--db", db)
	if out := mustCLI(t, "import", file, "--db", db); !strings.HasPrefix(out, "already in the history: "+id[:8]) {
		t.Errorf("importing the export into its own history said %q", out)
	}
	if out := mustCLI(t, "runs", "--db", db); strings.Count(out, id[:8]) != 1 {
		t.Errorf("runs after the import:\n%s", out)
	}
	db2 := filepath.Join(dir, "other.db")
	if out := mustCLI(t, "import", file, "--db", db2); !strings.HasPrefix(out, "imported "+id[:8]) {
		t.Errorf("importing into another history said %q", out)
	}
	if a, b := mustCLI(t, "export", id, "--db", db), mustCLI(t, "export", id, "--db", db2); a != b {
		t.Errorf("the run read from its llm-decode-bench file differs from the run:\n%s\n---\n%s", b, a)
	}

	// The seed tool's file: import, export in its layout, import again.
	out := mustCLI(t, "import", cliLDBFixture, "--db", db)
	seed := regexp.MustCompile(`^imported (\S+)`).FindStringSubmatch(out)
	if seed == nil {
		t.Fatalf("import of the seed file said %q", out)
	}
	back := filepath.Join(dir, "seed-back.json")
	mustCLI(t, "export", seed[1], "--format", "llm-decode-bench", "-o", back, "--db", db)
	if out := mustCLI(t, "import", back, "--db", db); !strings.HasPrefix(out, "already in the history: "+seed[1]) {
		t.Errorf("re-importing the seed file's export said %q", out)
	}
}

// Compare by file path reads a file's model as import does: the published
// CSV's "agents-a1-4b-fp8" (from its name) and the seed tool's
// "agents/a1-4b-fp8" are one model, not a difference.
func TestCompareFilesNormalisesModels(t *testing.T) {
	dir := t.TempDir()
	ref := refCopy(t, dir)
	ldb := filepath.Join(dir, "ldb.json")
	data, err := os.ReadFile(cliLDBFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ldb, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustCLI(t, "compare", ref, ldb, "--format", "md", "--db", filepath.Join(dir, "none.db"))
	key := out[:strings.Index(out, "Changes are against")]
	if strings.Count(key, "(RTX 3060 12GB · agents/a1-4b-fp8 · vllm 0.32.0)") != 1 || strings.Count(key, "(agents/a1-4b-fp8 · vllm)") != 1 {
		t.Errorf("the key does not name one model for both:\n%s", key)
	}
	for _, line := range strings.Split(key, "\n") {
		if _, differs, ok := strings.Cut(line, "differs:"); ok && strings.Contains(differs, "agents") {
			t.Errorf("the model is called a difference: %s", line)
		}
	}
}
