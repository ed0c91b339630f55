package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// A run whose requests queued behind --max-num-seqs carries its
// bottleneck and the advice in the Markdown and HTML reports, in
// diagnose's words.
func TestReportsCarryDiagnosis(t *testing.T) {
	r := &rundoc.Run{Schema: rundoc.Schema, UUID: "5f0c3a2e-1d4b-4c6a-9e8f-7a6b5c4d3e2f", Status: rundoc.RunComplete, Simulated: true,
		Plan:   rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 5, MaxOutput: 64},
		Server: rundoc.Server{Model: "m", KVCapacityTokens: 3264, KVCapacitySource: rundoc.KVSourceMetrics, ServerFacts: rundoc.ServerFacts{Slots: 2}},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 4, Status: rundoc.StatusQueued, TotalTokS: 180, MeasuredS: 5,
			ServerSamples: []rundoc.ServerSample{{T: 1, Running: 2, Waiting: 2}}}},
	}
	for _, f := range []report.Format{report.Markdown, report.HTML} {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{r}, report.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Diagnosis", "0×4: queue-bound (waiting 2, running 2 = --max-num-seqs)", "--max-num-seqs 4: 0×4 would stop queueing"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
	}
}
