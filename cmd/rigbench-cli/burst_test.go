package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// TestBurstRunShowExportImport (issue 39): `run --demo --burst` measures
// the sustained cell, then a burst cell of K = 4N requests; run and show
// print the burst apart from the decode matrix; the history (SQLite)
// keeps the burst cell as measured; an llm-decode-bench export of the run,
// stripped of what only RigBench writes, imports back with the burst cell
// and its figures.
func TestBurstRunShowExportImport(t *testing.T) {
	dir := t.TempDir()
	db, whole := filepath.Join(dir, "h.db"), filepath.Join(dir, "run.json")
	code, out, stderr := runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20", "--contexts", "0", "--concurrency", "2",
		"--prefill", "none", "--duration", "3s", "--max-output", "32", "--burst", "--no-telemetry", "--db", db, "--json", whole)
	if code != 0 {
		t.Fatalf("run --burst: exit %d\n%s", code, stderr)
	}
	run := readRunFile(t, whole)
	if len(run.Cells) != 2 || run.Cells[0].Phase != rundoc.PhaseDecode || run.Cells[1].Phase != rundoc.PhaseBurst || run.Plan.Burst != rundoc.BurstAfter {
		t.Fatalf("plan burst %q, cells %+v; want the decode cell, then the burst cell", run.Plan.Burst, run.Cells)
	}
	b := run.Cells[1]
	if b.Status != rundoc.StatusValid || b.RequestCount != 8 || b.CompletedRequests != 8 || b.LatencyMs <= 0 {
		t.Fatalf("burst cell %s (%s): K %d, completed %d, latency %v", b.Status, b.Reason, b.RequestCount, b.CompletedRequests, b.LatencyMs)
	}
	for _, text := range []string{out, mustCLI(t, "show", run.UUID[:8], "--db", db)} {
		decode, burst, ok := strings.Cut(text, "\nBurst: ")
		if !ok || !strings.Contains(burst, "latency p50 ms") || !strings.Contains(burst, "0×2") ||
			!strings.Contains(burst, rundoc.FigLatency.TextCI(&b)) || strings.Contains(decode, rundoc.FigLatency.Label) {
			t.Errorf("the burst table is missing or mixed into the matrix:\n%s", text)
		}
	}
	// The history keeps the burst cell as measured.
	h, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := h.Get(context.Background(), run.UUID)
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := kept.Find(rundoc.PhaseBurst, 0, 2); got == nil || !reflect.DeepEqual(got.CellBurst, b.CellBurst) || got.TotalTokS != b.TotalTokS {
		t.Errorf("the history's burst cell %+v, measured %+v", got, b)
	}

	file := filepath.Join(dir, "ldb.json")
	mustCLI(t, "export", run.UUID[:8], "--format", "llm-decode-bench", "-o", file, "--db", db)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	meta := doc["metadata"].(map[string]any)
	for _, k := range []string{"rigbench_run", "rigbench_plan", "rigbench_run_uuid", "written_by", "rigbench_name"} {
		delete(meta, k)
	}
	plain, _ := json.Marshal(doc)
	if err := os.WriteFile(file, plain, 0o600); err != nil {
		t.Fatal(err)
	}
	db2 := filepath.Join(dir, "other.db")
	imported := regexp.MustCompile(`^imported (\S+)`).FindStringSubmatch(mustCLI(t, "import", file, "--db", db2))
	if imported == nil {
		t.Fatal("the stripped export did not import")
	}
	shown := mustCLI(t, "show", imported[1], "--db", db2)
	if _, burst, ok := strings.Cut(shown, "\nBurst: "); !ok || !strings.Contains(burst, rundoc.FigLatency.Text(&b)) {
		t.Errorf("the imported burst cell (latency p50 %s) is not shown:\n%s", rundoc.FigLatency.Text(&b), shown)
	}
}
