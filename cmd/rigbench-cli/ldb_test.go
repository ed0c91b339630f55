package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const ldbFixture = "../../engine/report/testdata/llm-decode-bench-0.4.29_sim-rtx3060.json"

// The seed tool's benchmark_results.json imports into a real history
// (twice, idempotently), shows, compares against a RigBench run, and
// exports in its own layout again.
func TestImportLDBShowCompareExport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	out := mustCLI(t, "import", ldbFixture, "--db", db)
	id := strings.Fields(out)[1]
	mustCLI(t, "import", ldbFixture, "--db", db)
	if runs := mustCLI(t, "runs", "--db", db); strings.Count(runs, id[:8]) != 1 {
		t.Errorf("re-import added a second run:\n%s", runs)
	}
	show := mustCLI(t, "show", id, "--db", db)
	for _, want := range []string{"agents/a1-4b-fp8", "394.9"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	ref := refCopy(t, dir)
	cmp := mustCLI(t, "compare", id, ref, "--db", db, "--format", "md")
	if !strings.Contains(cmp, "394.9") {
		t.Errorf("compare lacks the imported figure:\n%s", cmp)
	}
	exp := filepath.Join(dir, "back.json")
	mustCLI(t, "export", id, "--format", "llm-decode-bench", "-o", exp, "--db", db)
	data, err := os.ReadFile(exp)
	if err != nil || !strings.Contains(string(data), `"summary_table"`) {
		t.Fatalf("export: %v\n%s", err, data)
	}
	back := mustCLI(t, "import", exp, "--db", filepath.Join(dir, "other.db"))
	if !strings.HasPrefix(back, "imported") && !strings.Contains(back, "mported") {
		t.Errorf("re-import of the export: %s", back)
	}
}
