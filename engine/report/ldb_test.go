package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

const ldbFixture = "testdata/llm-decode-bench-0.4.29_sim-rtx3060.json"

// The seed tool's real file imports by content, with its plan, prefill
// and decode cells, and the same bytes give the same UUID.
func TestOpenRunReadsLDBJSON(t *testing.T) {
	r, err := report.OpenRun(context.Background(), ldbFixture)
	if err != nil {
		t.Fatal(err)
	}
	if r.Origin != rundoc.OriginImported || r.Server.Model != "agents/a1-4b-fp8" || r.Plan.WindowOpens != rundoc.OpensSteady ||
		r.Plan.Prompts != rundoc.PromptsShared || r.Plan.DurationS != 15 || r.Plan.MaxOutput != 8192 {
		t.Errorf("run facts: %+v %+v", r.Server, r.Plan)
	}
	if len(r.Cells) != 8 {
		t.Fatalf("got %d cells, want 2 prefill + 6 decode", len(r.Cells))
	}
	c := r.Find(rundoc.PhaseDecode, 16384, 16)
	if c == nil || c.Status != rundoc.StatusValid || rundoc.FigTotalTokS.Text(c) != "394.9" || rundoc.FigPerRequestTokS.Text(c) != "25.9" ||
		rundoc.FigTTFT.Text(c) != "10975" || c.RampS != 25.224 {
		t.Errorf("16K×16: %+v", c)
	}
	p := r.Find(rundoc.PhasePrefill, 8192, 1)
	if p == nil || p.PromptTokS != 2229 || p.TTFTMs != 3676 {
		t.Errorf("prefill 8K: %+v", p)
	}
	again, _ := report.OpenRun(context.Background(), ldbFixture)
	if again.UUID != r.UUID {
		t.Errorf("UUID %s then %s: re-import would not be idempotent", r.UUID, again.UUID)
	}
}

// The tool's flags become RigBench statuses, with its reason kept; an
// invalid cell has no throughput.
func TestLDBStatuses(t *testing.T) {
	for _, tc := range []struct {
		cell string
		want rundoc.Status
	}{
		{`"capacity_limited":true,"aggregate_tps":12.5,"timeout_reason":"needs 9 tokens"`, rundoc.StatusOverCapacity},
		{`"num_errors":2,"aggregate_tps":12.5`, rundoc.StatusFailed},
		{`"aggregate_tps":null`, rundoc.StatusFailed},
		{`"underfilled":true,"aggregate_tps":12.5`, rundoc.StatusQueued},
		{`"warmup_timed_out":true,"aggregate_tps":12.5,"timeout_reason":"running_reqs=5/16"`, rundoc.StatusValid},
	} {
		doc := `{"metadata":{"version":"0.4.29","context_lengths":[0],"concurrency_levels":[4],"duration_per_test":15},"prefill":{},` +
			`"results":[{"concurrency":4,"context_tokens":0,` + tc.cell + `}]}`
		r, err := report.ReadRunData([]byte(doc), "x.json")
		if err != nil {
			t.Fatalf("%s: %v", tc.cell, err)
		}
		c := r.Cells[0]
		if c.Status != tc.want {
			t.Errorf("%s: status %q, want %q", tc.cell, c.Status, tc.want)
		}
		if !c.Status.Ran() && c.TotalTokS != 0 {
			t.Errorf("%s: invalid cell keeps total tok/s %g", tc.cell, c.TotalTokS)
		}
		if i := strings.Index(tc.cell, `"timeout_reason":"`); i >= 0 {
			why := strings.TrimSuffix(tc.cell[i+len(`"timeout_reason":"`):], `"`)
			if !strings.Contains(c.Reason, why) {
				t.Errorf("%s: reason %q lost the tool's %q", tc.cell, c.Reason, why)
			}
		}
	}
}

// Truncations of the real file are refused with a sentence, never a panic.
func FuzzReadLDBJSON(f *testing.F) {
	data, err := os.ReadFile(ldbFixture)
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{len(data), len(data) / 2, 200, 20, 1} {
		f.Add(data[:n])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "ldb.json")
		os.WriteFile(p, b, 0o600)
		r, err := report.OpenRun(context.Background(), p)
		if err == nil && r == nil {
			t.Fatal("no run and no error")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "the file ldb.json ") {
			t.Errorf("error %q does not start with the file's name", err)
		}
	})
}

// Import → export llm-decode-bench → import keeps every figure RigBench
// shows (the registry's text of every measurement figure), each status,
// ramp and readiness.
func TestLDBRoundTrip(t *testing.T) {
	first, err := report.OpenRun(context.Background(), ldbFixture)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.Write(&b, report.LDB, []*rundoc.Run{first}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	second, err := report.ReadRunData([]byte(b.String()), "back.json")
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if len(second.Cells) != len(first.Cells) {
		t.Fatalf("%d cells back, want %d", len(second.Cells), len(first.Cells))
	}
	for _, c := range first.Cells {
		d := second.Find(c.Phase, c.Context, c.Concurrency)
		if d == nil {
			t.Errorf("%s %d×%d lost", c.Phase, c.Context, c.Concurrency)
			continue
		}
		if d.Status != c.Status || d.RampS != c.RampS || d.Readiness != c.Readiness {
			t.Errorf("%s %d×%d: status/ramp/readiness %q %g %q, want %q %g %q", c.Phase, c.Context, c.Concurrency,
				d.Status, d.RampS, d.Readiness, c.Status, c.RampS, c.Readiness)
		}
		for _, f := range rundoc.MeasurementFigures {
			if got, want := f.Text(d), f.Text(&c); got != want {
				t.Errorf("%s %d×%d %s: %q, want %q", c.Phase, c.Context, c.Concurrency, f.Key, got, want)
			}
		}
	}
	if second.Plan.DurationS != first.Plan.DurationS || second.Server.Model != first.Server.Model {
		t.Errorf("plan/server: %+v %+v", second.Plan, second.Server)
	}
}

// An import's model spelling knows the simulator's models without the
// caller listing them (one list for both front ends), and the history's
// models as given.
func TestNormaliseModelKnowsTheSimulatorsModels(t *testing.T) {
	if got := report.NormaliseModel("agents-a1-4b-fp8", nil); got != "agents/a1-4b-fp8" {
		t.Errorf("with no history: %q", got)
	}
	if got := report.NormaliseModel("me-my-model", []string{"me/My-Model"}); got != "me/My-Model" {
		t.Errorf("from the history: %q", got)
	}
	if got := report.NormaliseModel("some-other-model", nil); got != "some-other-model" {
		t.Errorf("unknown: %q", got)
	}
}

// A speculative run's drafting figures go out under llm_decode_bench's
// names (server_spec_accept_rate, server_steps_per_s, accept_norm_tps …)
// and come back as they were, with the reference acceptance length; a
// plain cell gets the tool's zeros, which read back as no drafting.
func TestLDBKeepsDraftingFigures(t *testing.T) {
	run := reference(t)
	run.Plan.AcceptLenRef = 3
	var drafting *rundoc.Cell
	for i := range run.Cells {
		if c := &run.Cells[i]; c.Phase == rundoc.PhaseDecode && c.Status.Ran() {
			drafting = c
			break
		}
	}
	drafting.CellSpec = rundoc.CellSpec{SpecDrafts: 1200, SpecDraftTokens: 2400, SpecAcceptedTokens: 1560, SpecAcceptRate: 0.65,
		SpecAcceptLength: 2.3, SpecPosAccept: []float64{0.78, 0.52}, EngineSteps: 1274, SpecAcceptLengthEff: 2.2245,
		StepsPerS: 42.5, ProjectedTokS: 127.5}
	var b strings.Builder
	if err := report.Write(&b, report.LDB, []*rundoc.Run{run}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"server_spec_accept_rate": 0.65`, `"server_steps_per_s": 42.5`, `"accept_norm_ref_len": 3`, `"server_spec_pos_accept": [`} {
		if !strings.Contains(b.String(), field) {
			t.Errorf("the export lacks %s", field)
		}
	}
	back, err := report.ReadRunData([]byte(b.String()), "back.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Plan.AcceptLenRef != 3 {
		t.Errorf("reference acceptance length %g back, want 3", back.Plan.AcceptLenRef)
	}
	for _, c := range back.Cells {
		orig := run.Find(c.Phase, c.Context, c.Concurrency)
		if fmt.Sprint(c.CellSpec) != fmt.Sprint(orig.CellSpec) {
			t.Errorf("%s: drafting %+v back, want %+v", c.Label(), c.CellSpec, orig.CellSpec)
		}
	}
}
