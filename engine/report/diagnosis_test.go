package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
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

// A two-GPU run's reports say where the energy comes from and split each
// cell by GPU, in rundoc.EnergyLines' words; a run without energy has no
// Energy section.
func TestReportsCarryEnergy(t *testing.T) {
	r := &rundoc.Run{Schema: rundoc.Schema, UUID: "6a1d4b3f-2e5c-4d7b-8f90-8b7c6d5e4f30", Status: rundoc.RunComplete,
		Plan:   rundoc.Plan{Contexts: []int{0}, Concurrency: []int{8}, DurationS: 5, MaxOutput: 64},
		Server: rundoc.Server{Model: "m"},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 8, Status: rundoc.StatusValid, TotalTokS: 700, MeasuredS: 5,
			EnergyJPerToken: 0.412, GPUStats: &hardware.GPUStats{EnergySource: hardware.EnergyFromCounter, PerGPU: []hardware.GPUPower{
				{GPU: 0, PowerMeanW: 151, EnergyJPerToken: 0.207}, {GPU: 1, PowerMeanW: 150, EnergyJPerToken: 0.205}}}}},
	}
	for _, f := range []report.Format{report.Markdown, report.HTML} {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{r}, report.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Energy per token from the cards", "energy counters in every decode cell.",
			"0×8: 0.412 J/token on 2 GPUs: GPU 0 0.207 J/token, 151 W mean; GPU 1 0.205 J/token, 150 W mean"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
	}
	r.Cells[0].EnergyJPerToken, r.Cells[0].GPUStats = 0, nil
	for _, f := range []report.Format{report.Markdown, report.HTML} {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{r}, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "## Energy") || strings.Contains(b.String(), `id="energy"`) {
			t.Errorf("%s has an Energy section without energy", f)
		}
	}
}
