package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/sim"
)

func runQualityCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	dir := t.TempDir()
	e := &env{stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "RIGBENCH_DB" {
			return filepath.Join(dir, "history.db")
		}
		return ""
	}}
	code := execute(context.Background(), e, append([]string{"quality"}, args...))
	return code, out.String(), errb.String()
}

// The demo's KV-cache sweep, as a user runs it: a baseline saved with
// --json, then each lossy launch compared with it.
func TestQualityCommandDemoPaired(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	code, out, errs := runQualityCLI(t, "--demo", "--probe", "gsm8k:200", "--json", base)
	if code != 0 || !strings.Contains(out, "accuracy ") || !strings.Contains(out, "(Wilson)") {
		t.Fatalf("baseline: exit %d\n%s%s", code, out, errs)
	}
	f, err := os.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	r, err := quality.Read(f)
	f.Close()
	if err != nil || len(r.Items) != 200 || !r.Simulated {
		t.Fatalf("the saved result: %v, %d items", err, len(r.Items))
	}
	code, out, errs = runQualityCLI(t, "--demo", "--probe", "gsm8k:200", "--baseline", base, "--", "--kv-cache-dtype", "int4_per_token_head")
	if code != 0 || !strings.Contains(out, "verdict: accuracy lost") || !strings.Contains(out, "exact McNemar p ") ||
		!strings.Contains(out, "profile states this launch's loss") {
		t.Errorf("int4: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runQualityCLI(t, "--demo", "--probe", "gsm8k:200", "--baseline", base, "--", "--kv-cache-dtype", "fp8")
	if code != 0 || !strings.Contains(out, "verdict: no significant change") {
		t.Errorf("fp8: exit %d\n%s%s", code, out, errs)
	}
	t.Log(out)
}

func TestQualityCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	ag := filepath.Join(dir, "ag.json")
	if code, out, errs := runQualityCLI(t, "--demo", "--probe", "agreement", "--json", ag); code != 0 || !strings.Contains(out, "agreement: 8 prompts") {
		t.Fatalf("agreement: exit %d\n%s%s", code, out, errs)
	}
	b20 := filepath.Join(dir, "b20.json")
	if code, out, errs := runQualityCLI(t, "--demo", "--probe", "gsm8k:20", "--json", b20); code != 0 {
		t.Fatalf("gsm8k:20: exit %d\n%s%s", code, out, errs)
	}
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, quality.DemoGSM8K(30), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--demo", "--probe", "gsm8k:20", "--dataset", other, "--baseline", b20}, 1, "is not this probe's (sha256"},
		{[]string{"--demo", "--probe", "gsm8k:20", "--max-tokens", "256", "--baseline", b20}, 1, "settings"},
		{[]string{"--demo", "--probe", "gsm8k:20", "--baseline", ag}, 1, "the baseline measured agreement and this probe gsm8k:20"},
		{[]string{"--probe", "agreement"}, 2, "choose one target"},
		{[]string{"--demo", "--probe", "mmlu"}, 2, "is not a probe"},
		{[]string{"--demo", "--probe", "agreement", "--baseline", ag, "--json", ag}, 2, "the baseline (--baseline)"},
	} {
		code, _, errs := runQualityCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// An endpoint that needs a key, a data file given with --dataset: the
// model comes from /v1/models and the result says the simulator answered.
func TestQualityCommandEndpointWithDatasetFile(t *testing.T) {
	cfg, err := sim.ParseArgs([]string{"--speed", "inf", "--api-key", "sekret-key"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	dir := t.TempDir()
	data := filepath.Join(dir, "set.jsonl")
	if err := os.WriteFile(data, quality.DemoGSM8K(30), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	code, stdout, errs := runQualityCLI(t, "--endpoint", hs.URL, "--api-key", "sekret-key", "--probe", "gsm8k:30", "--dataset", data, "--json", out)
	if code != 0 || !strings.Contains(stdout, "gsm8k:30 on gsm8k (sha256 ") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errs)
	}
	raw, _ := os.ReadFile(out)
	r, err := quality.Read(bytes.NewReader(raw))
	if err != nil || r.Model != s.Model() || !r.Simulated || len(r.Items) != 30 || strings.Contains(string(raw), "sekret-key") {
		t.Fatalf("result: %v, model %q simulated %v, %d items", err, r.Model, r.Simulated, len(r.Items))
	}
	if code, _, errs := runQualityCLI(t, "--endpoint", hs.URL, "--probe", "agreement"); code != 1 || !strings.Contains(errs, "API key") {
		t.Errorf("without the key: exit %d %q", code, errs)
	}
}

// The demo's multiple-choice probe, paired: per-category deltas show, and
// `quality compare` of the two saved results says the same.
func TestQualityCommandDemoChoice(t *testing.T) {
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.json"), filepath.Join(dir, "int4.json")
	if code, out, errs := runQualityCLI(t, "--demo", "--probe", "mmlupro:300", "--json", base); code != 0 || !strings.Contains(out, "mmlu-pro:300 on demo-choice") {
		t.Fatalf("baseline: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runQualityCLI(t, "--demo", "--probe", "gpqa:20"); code != 0 || !strings.Contains(out, "gpqa-diamond:20 on demo-choice") {
		t.Fatalf("gpqa: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := runQualityCLI(t, "--demo", "--probe", "mmlu-pro:300", "--baseline", base, "--json", cand, "--", "--kv-cache-dtype", "int4_per_token_head")
	if code != 0 || !strings.Contains(out, "verdict: accuracy lost") || !strings.Contains(out, "  2 steps") || !strings.Contains(out, "  4 steps") {
		t.Fatalf("int4: exit %d\n%s%s", code, out, errs)
	}
	verdict := out[strings.Index(out, "verdict:"):]
	verdict = verdict[:strings.Index(verdict, "\n")]
	code, out2, errs := runQualityCLI(t, "compare", base, cand)
	if code != 0 || !strings.Contains(out2, verdict) {
		t.Errorf("compare: exit %d, want %q\n%s%s", code, verdict, out2, errs)
	}
	t.Log(out)
}

// Two of llm-inference-bench's completion-stats reports compare with
// `quality compare`, paired on the items both scored; anything else is
// refused in one sentence.
func TestQualityCompareSeedReports(t *testing.T) {
	dir := t.TempDir()
	report := func(name string, right func(i int) bool) string {
		var runs []map[string]any
		for i := range 40 {
			runs = append(runs, map[string]any{"run_index": i + 1, "ok": true, "item_id": fmt.Sprintf("gsm8k-%04d", i), "category": "",
				"correct": right(i), "completion_tokens": 200 + i, "score_label": "exact", "score_detail": "exact", "hit_max_tokens": false})
		}
		data, _ := json.Marshal(map[string]any{"metadata": map[string]any{"version": "0.4.29", "mode": "completion_stats", "test_profile": "gsm8k",
			"server": "http://10.0.0.5:8000", "model": "m", "dataset": "gsm8k_test", "dataset_sha256": quality.GSM8K.SHA256}, "runs": runs})
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	a := report("a.json", func(i int) bool { return i < 30 })
	b := report("b.json", func(i int) bool { return i < 22 })
	code, out, errs := runQualityCLI(t, "compare", a, b)
	// 8 right only in the baseline, none gained: p = 2·2⁻⁸.
	if code != 0 || !strings.Contains(out, "8 right only in the baseline, 0 only in this run; exact McNemar p = 0.0078") || !strings.Contains(out, "llm-inference-bench 0.4.29 report of m") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"kind":"rigbench.run/v1"}`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", a, junk}, 1, "neither a RigBench quality result"},
		{[]string{"compare", a}, 2, "takes two files"},
		{[]string{"--demo", "--probe", "gpqa:20", "--dataset", a}, 1, "line 1 of gpqa-diamond has no question, no options"},
	} {
		code, _, errs := runQualityCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
