package chart_test

import (
	"os"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// referencePath is the published RTX 3060 run in the repository's shared
// folder; tests that need it skip with a message when it is absent.
const referencePath = "../testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

// referenceRun loads the reference CSV through the report package's reader
// and fills in the facts the CSV does not carry, fixed so goldens are
// stable.
func referenceRun(t testing.TB) *rundoc.Run {
	t.Helper()
	f, err := os.Open(referencePath)
	if err != nil {
		t.Fatalf("reference run not available (%v)", err)
	}
	defer f.Close()
	r, err := report.ReadReferenceCSVNamed(f, "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err != nil {
		t.Fatalf("read reference: %v", err)
	}
	r.CreatedAt = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	return r
}

// variantRun is the reference run as if measured with another flag and on
// another card: every figure scaled, so comparisons have a known change.
func variantRun(t testing.TB, base *rundoc.Run, scale float64) *rundoc.Run {
	t.Helper()
	v := *base
	v.UUID = "variant"
	v.Name = "tuned"
	v.Cells = append([]rundoc.Cell(nil), base.Cells...)
	for i := range v.Cells {
		c := &v.Cells[i]
		c.TotalTokS *= scale
		c.PerRequestTokS *= scale
		c.PromptTokS *= scale
		c.TTFTMs /= scale
	}
	v.Launch = &rundoc.Launch{Image: "vllm/vllm-openai:v0.32.0", Model: "agents-a1-4b-fp8", Args: []string{"--max-num-seqs", "64", "--enable-prefix-caching"}}
	v.Hardware = &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3090"}}}
	return &v
}

// energyRun is a small run with GPU telemetry: J/token = power × D / tokens.
func energyRun() *rundoc.Run {
	r := &rundoc.Run{Schema: rundoc.Schema, UUID: "energy", Name: "energy demo", Server: rundoc.Server{Model: "m"}}
	for _, ctx := range []int{0, 16384} {
		for _, n := range []int{1, 2, 4, 8} {
			tokS := float64(40*n) / (1 + float64(ctx)/65536)
			power := 120 + 15*float64(n)
			r.Cells = append(r.Cells, rundoc.Cell{
				Phase: rundoc.PhaseDecode, Context: ctx, Concurrency: n, Status: rundoc.StatusValid,
				TotalTokS: tokS, OutputTokens: int(tokS * 30), MeasuredS: 30,
				GPUStats:        &hardware.GPUStats{Samples: 30, PowerMeanW: power},
				EnergyJPerToken: power * 30 / (tokS * 30),
			})
		}
	}
	return r
}
