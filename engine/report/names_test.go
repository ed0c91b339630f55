package report_test

// Issue 35 item 7: names that are true, files that travel whole.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// The real llm_decode_bench file RigBench's reference folder holds, and its
// copy under testdata.
const sharedLDB = "../../../shared/reference/llm-decode-bench-0.4.29_sim-rtx3060.json"

// jsonTree parses JSON keeping every number as the file spelled it.
func jsonTree(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v
}

// missing lists the paths of want that got lacks or holds otherwise:
// every field of want, at any depth, must be in got with its value.
func missing(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path + " (not an object)"}
		}
		var out []string
		for k, v := range w {
			gv, has := g[k]
			if !has {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, missing(v, gv, path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s (a list of %d, got %v)", path, len(w), got)}
		}
		var out []string
		for i := range w {
			out = append(out, missing(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return []string{fmt.Sprintf("%s = %v, want %v", path, got, want)}
	}
	return nil
}

// The seed tool's real file exports back in its layout with every field
// it came with, at any depth and in its order (the JSON trees compared),
// names RigBench as the writer without changing the tool's version, and
// its export imports as the run already imported (same UUID).
func TestLDBExportKeepsEveryFieldOfTheSeedFile(t *testing.T) {
	for _, path := range []string{sharedLDB, ldbFixture} {
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) && path == sharedLDB {
			t.Logf("%s is not here; the testdata copy is checked", path)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		first, err := report.OpenRun(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := report.Write(&b, report.LDB, []*rundoc.Run{first}, report.Options{}); err != nil {
			t.Fatal(err)
		}
		orig, back := jsonTree(t, data), jsonTree(t, b.Bytes())
		if lost := missing(orig, back, ""); len(lost) > 0 {
			t.Errorf("%s: %d fields lost or changed, e.g. %s", filepath.Base(path), len(lost), strings.Join(lost[:min(5, len(lost))], "; "))
		}
		meta := back.(map[string]any)["metadata"].(map[string]any)
		if meta["written_by"] != rundoc.WrittenBy || meta["version"] != "0.4.29" {
			t.Errorf("%s: written_by %v, version %v; want %q and the tool's 0.4.29", filepath.Base(path), meta["written_by"], meta["version"], rundoc.WrittenBy)
		}
		again, err := report.ReadRunData(b.Bytes(), "back.json")
		if err != nil {
			t.Fatal(err)
		}
		if again.UUID != first.UUID {
			t.Errorf("%s: the export imports as %s, not as the run it came from (%s): a second run in the history", filepath.Base(path), again.UUID, first.UUID)
		}
	}
}

// A RigBench run in the seed tool's layout: every field a cell fills
// (per_request_avg_tps = aggregate/N, the wall seconds, request counts,
// percentiles), the run's own cell order, RigBench named as the writer
// with the layout's version in a field of its own, and the file imports
// back as the same run.
func TestLDBExportOfARigBenchRun(t *testing.T) {
	r := mdFullRun()
	r.Plan.SimSpeed = 10
	r.Cells[0].ServerSamples = []rundoc.ServerSample{{T: -0.01, Running: 0}, {T: 1, Running: 1, Waiting: 0}, {T: 2, Running: 1, Waiting: 2}}
	var b bytes.Buffer
	if err := report.Write(&b, report.LDB, []*rundoc.Run{r}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	doc := jsonTree(t, b.Bytes()).(map[string]any)
	meta := doc["metadata"].(map[string]any)
	if _, has := meta["version"]; has {
		t.Errorf("metadata.version %v: a RigBench run is not that tool's version", meta["version"])
	}
	if meta["written_by"] != rundoc.WrittenBy || meta["layout_version"] != report.LDBLayoutVersion || meta["rigbench_run_uuid"] != r.UUID {
		t.Errorf("metadata names %v / %v / %v", meta["written_by"], meta["layout_version"], meta["rigbench_run_uuid"])
	}
	results := doc["results"].([]any)
	var order []string
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode {
			order = append(order, fmt.Sprintf("%d×%d", c.Context, c.Concurrency))
		}
	}
	var got []string
	for _, e := range results {
		m := e.(map[string]any)
		got = append(got, fmt.Sprintf("%v×%v", m["context_tokens"], m["concurrency"]))
	}
	if strings.Join(got, " ") != strings.Join(order, " ") {
		t.Errorf("results in order %v, the run's is %v", got, order)
	}
	first := results[0].(map[string]any) // 0×1, Valid, with samples
	second := results[1].(map[string]any)
	num := func(m map[string]any, k string) float64 {
		n, ok := m[k].(json.Number)
		if !ok {
			t.Errorf("%s is %v, want a number", k, m[k])
			return 0
		}
		f, _ := n.Float64()
		return f
	}
	if got, want := num(second, "per_request_avg_tps"), r.Cells[1].TotalTokS/8; got != want {
		t.Errorf("per_request_avg_tps %g, want aggregate/N = %g", got, want)
	}
	for k, want := range map[string]float64{
		"measurement_seconds": 30.001, "measurement_wall_seconds": 3.0001, "request_count": 1, "completed_request_count": 1,
		"client_output_tokens": 2942, "ttft_p50": 0.0416, "ttft_p90": 0.044, "ttft_p99": 0.052,
		"inter_token_latency_p50": 0.01019, "inter_token_latency_p99": 0.0121, "output_tps_per_user_p50": 98.2,
		"avg_running_reqs": 1, "max_running_reqs": 1, "avg_queue_reqs": 1, "num_errors": 0,
	} {
		if got := num(first, k); fmt.Sprintf("%.6g", got) != fmt.Sprintf("%.6g", want) {
			t.Errorf("0×1 %s = %g, want %g", k, got, want)
		}
	}
	for k, p := range doc["prefill"].(map[string]any) {
		if m := p.(map[string]any)["method"]; m == "client" {
			t.Errorf("prefill %s: method %q; RigBench's prefill cells are its own standalone requests", k, m)
		}
	}
	back, err := report.ReadRunData(b.Bytes(), "run.json")
	if err != nil {
		t.Fatal(err)
	}
	var want, have bytes.Buffer
	if err := rundoc.WriteRun(&want, r); err != nil {
		t.Fatal(err)
	}
	if err := rundoc.WriteRun(&have, back); err != nil {
		t.Fatal(err)
	}
	if want.String() != have.String() {
		t.Errorf("the run read back differs:\n%s\n---\n%s", have.String(), want.String())
	}

	// Without the whole run (a tool that keeps only the layout's fields),
	// the file still reads as that run: its UUID, statuses, plan and the
	// figures the layout holds.
	delete(meta, "rigbench_run")
	slim, _ := json.Marshal(doc)
	lean, err := report.ReadRunData(slim, "slim.json")
	if err != nil {
		t.Fatal(err)
	}
	if lean.UUID != r.UUID || lean.Name != r.Name || !lean.Source.ServerKnown || lean.Simulated != r.Simulated || lean.Plan.SimSpeed != 10 {
		t.Errorf("slim file: uuid %s name %q server known %v simulated %v plan %+v", lean.UUID, lean.Name, lean.Source.ServerKnown, lean.Simulated, lean.Plan)
	}
	for _, c := range r.Cells {
		d := lean.Find(c.Phase, c.Context, c.Concurrency)
		if d == nil || d.Status != c.Status {
			t.Errorf("slim file: %s lost or changed: %+v", c.Label(), d)
			continue
		}
		for _, f := range []rundoc.Figure{rundoc.FigTotalTokS, rundoc.FigPerRequestTokS, rundoc.FigTTFT, rundoc.FigTBT, rundoc.FigPromptTokS} {
			if got, want := f.Text(d), f.Text(&c); got != want {
				t.Errorf("slim file: %s %s = %q, want %q", c.Label(), f.Key, got, want)
			}
		}
	}
}

// Hostile files are refused with a sentence naming the field, never read
// as a Valid cell without a figure nor called "not a RigBench run file".
func TestImportersRefuseAbsurdFigures(t *testing.T) {
	ldb := func(meta, prefill, results string) string {
		return `{"metadata":{"version":"0.4.29","context_lengths":[0],"concurrency_levels":[1],"duration_per_test":15` + meta + `},` +
			`"prefill":{` + prefill + `}` + results + `}`
	}
	cell := func(s string) string {
		return `,"results":[{"concurrency":1,"context_tokens":0,"aggregate_tps":50,"ttft_p50":0.2` + s + `}]`
	}
	rig := func(s string) string {
		return `{"schema":"rigbench.run/v1","uuid":"0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c","status":"complete",` +
			`"created_at":"2025-01-01T00:00:00Z","plan":{"contexts":[0],"concurrency":[1],"prefill_contexts":[],"duration_s":30,"max_output":64},` +
			`"server":{"model":"m","kv_capacity_source":"unknown","has_metrics":false,"has_tokenize":false},` +
			`"cells":[{"phase":"decode","context":0,"concurrency":1,"status":"Valid"` + s + `}]}`
	}
	for _, tc := range []struct{ name, file, want string }{
		{"ldb 1e300 tok/s", ldb("", "", cell(`,"aggregate_tps":1e300`)), "results[0].aggregate_tps is 1e+300 tok/s, beyond"},
		{"ldb NaN", ldb("", "", cell(`,"aggregate_tps":NaN`)), "NaN in results[0].aggregate_tps"},
		{"ldb Infinity", ldb("", "", cell(`,"ttft_p50":-Infinity`)), "-Infinity in results[0].ttft_p50"},
		{"ldb no results", ldb("", "", ""), `no "results" list`},
		{"ldb negative context", ldb("", "", `,"results":[{"concurrency":1,"context_tokens":-16384,"aggregate_tps":50}]`), "results[0].context_tokens is -16384"},
		{"ldb no concurrency", ldb("", "", `,"results":[{"context_tokens":0,"aggregate_tps":50}]`), "results[0].concurrency is missing"},
		{"ldb negative TTFT", ldb("", "", cell(`,"ttft_p90":-1`)), "results[0].ttft_p90 is -1, below 0"},
		{"ldb zero rate", ldb("", "", cell(`,"aggregate_tps":0`)), "results[0].aggregate_tps is 0"},
		{"ldb prefill 1e300", ldb("", `"8192":{"tok_per_sec":1e300,"ttft_seconds":1}`, cell("")), `prefill["8192"].tok_per_sec is 1e+300`},
		{"ldb metadata", ldb(`,"max_total_tokens":1e300`, "", cell("")), "metadata.max_total_tokens is 1e+300"},
		{"ldb negative context list", ldb(`,"context_lengths":[-5]`, "", cell("")), "metadata.context_lengths[0] is -5"},
		{"run 1e300 tok/s", rig(`,"total_tok_s":1e300`), "total_tok_s is 1e+300, want a rate from 0 to 1e+07 tok/s"},
		{"run NaN", rig(`,"total_tok_s":NaN`), "NaN in cells[0].total_tok_s"},
		{"run blank Valid", rig(`,"ttft_ms":100`), "is Valid but has no total_tok_s"},
		{"run negative context", strings.Replace(rig(`,"total_tok_s":5`), `"context":0`, `"context":-1`, 1), "context is -1"},
	} {
		r, err := report.ReadRunData([]byte(tc.file), "x.json")
		switch {
		case err == nil:
			t.Errorf("%s: imported (%d cells, first %+v)", tc.name, len(r.Cells), r.Cells)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "not a RigBench run file"):
			t.Errorf("%s: %v\nwant a sentence with %q", tc.name, err, tc.want)
		}
	}
}

// Compare names the published CSV's method as the seed tool's (windows
// opened at steady state, shared prompts, fixed 30 s), and its server as
// not known, since the file does not say; an imported llm_decode_bench
// file of the simulator is not called real either.
func TestCompareNamesThePublishedMethod(t *testing.T) {
	ref := refFromTestdata(t)
	if ref.Plan.WindowOpens != rundoc.OpensSteady || ref.Plan.Prompts != rundoc.PromptsShared || ref.Plan.Window != rundoc.WindowFixed || ref.Plan.DurationS != 30 {
		t.Errorf("published CSV's plan: %+v", ref.Plan)
	}
	mine := mdFullRun() // a RigBench run whose plan does not record its method
	mine.Plan.Window, mine.Plan.Precision, mine.Plan.WindowOpens, mine.Plan.Prompts = rundoc.WindowAuto, 0.01, rundoc.OpensFirstSend, rundoc.PromptsUnique
	ldb, err := report.OpenRun(context.Background(), ldbFixture)
	if err != nil {
		t.Fatal(err)
	}
	diffs := chart.Differences([]*rundoc.Run{ref, mine, ldb})
	pub := strings.Join(diffs[0], ", ")
	for _, want := range []string{"30 s windows", "windows open at steady state", "shared (one per context) prompts", "server not known"} {
		if !strings.Contains(pub, want) {
			t.Errorf("the published run is described %q, lacking %q", pub, want)
		}
	}
	if strings.Contains(pub, "first send") || strings.Contains(pub, "unique") || strings.Contains(pub, "real") {
		t.Errorf("the published run is described %q", pub)
	}
	if got := strings.Join(diffs[2], ", "); !strings.Contains(got, "server not known") || strings.Contains(got, "real") {
		t.Errorf("the imported seed-tool run of the simulator is described %q", got)
	}
	if !strings.Contains(strings.Join(diffs[1], ", "), "real") {
		t.Errorf("RigBench's own measured run: %q", diffs[1])
	}
	var b bytes.Buffer
	if err := report.WriteCompareMarkdown(&b, []*rundoc.Run{ref, mine}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "windows open at steady state") || strings.Contains(b.String(), "open not recorded") {
		t.Errorf("Markdown compare key:\n%s", b.String()[:min(800, b.Len())])
	}
}

// Every Markdown compare table has its context and, for the decode
// matrix, its N column: TTFT, a figure of both phases, included.
func TestCompareMarkdownTablesHaveContextAndN(t *testing.T) {
	base := reference(t)
	var b bytes.Buffer
	if err := report.WriteCompareMarkdown(&b, []*rundoc.Run{base, tuned(t, base)}); err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`(?m)^## (Decode|Prefill) (.+)\n\n(\|.*\|)$`)
	tables := heading.FindAllStringSubmatch(b.String(), -1)
	if len(tables) < 3 {
		t.Fatalf("found %d tables:\n%s", len(tables), b.String())
	}
	for _, m := range tables {
		want := "| C | N |"
		if m[1] == "Prefill" {
			want = "| C | A |"
		}
		if !strings.HasPrefix(m[3], want) {
			t.Errorf("%s %s table's header %q, want it to start %q", m[1], m[2], m[3], want)
		}
	}
}

// Imported models spelled from a file name compare as the model they
// name, the way import normalises them.
func TestNormaliseModelMatchesTheFixture(t *testing.T) {
	ref := refFromTestdata(t)
	ldb, err := report.OpenRun(context.Background(), ldbFixture)
	if err != nil {
		t.Fatal(err)
	}
	if got := report.NormaliseModel(ref.Server.Model, []string{ldb.Server.Model}); got != ldb.Server.Model {
		t.Errorf("%q normalises to %q, want %q", ref.Server.Model, got, ldb.Server.Model)
	}
}

// rundoc.Version is the app's version in FyneApp.toml, which the app's
// package carries: one version, said once per build system.
func TestVersionIsTheAppsVersion(t *testing.T) {
	data, err := os.ReadFile("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Version = "([^"]+)"`).FindSubmatch(data)
	if m == nil || string(m[1]) != rundoc.Version {
		t.Errorf("FyneApp.toml's version %q, rundoc.Version %q", m, rundoc.Version)
	}
}
