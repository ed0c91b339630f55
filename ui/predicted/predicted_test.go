package predicted_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/predicted"
)

func TestVersusMeasured(t *testing.T) {
	p := predict.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: predict.StatusRuns, TotalTokS: 49.1}
	for _, tc := range []struct {
		measured *rundoc.Cell
		want     string
	}{
		{&rundoc.Cell{Phase: rundoc.PhaseDecode, Status: rundoc.StatusValid, TotalTokS: 49.6}, "predicted 49.1 tok/s, measured 49.6 (−1.0%); basis"},
		{&rundoc.Cell{Phase: rundoc.PhaseDecode, Status: rundoc.StatusValid, TotalTokS: 40}, "predicted 49.1 tok/s, measured 40.0 (+22.8%); basis"},
		{&rundoc.Cell{Phase: rundoc.PhaseDecode, Status: rundoc.StatusOverCapacity}, "predicted 49.1 tok/s, not measured; basis"},
	} {
		if got := predicted.VersusMeasured(p, tc.measured, "basis"); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestHeadlineAndCells(t *testing.T) {
	pr, err := predict.Request{Demo: true, Plan: rundoc.QuickPlan()}.Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := predicted.Headline(pr)
	if !strings.HasPrefix(h, "Predicted: 0×1 ≈ ") || !strings.HasSuffix(h, "("+pr.Basis()+")") || strings.Count(h, "≈") != 2 {
		t.Errorf("headline %q, want the first and the fastest decode cell, labelled, with the basis", h)
	}
	c := predicted.Cells(pr)
	if !strings.HasPrefix(c, "Predicted ("+pr.Basis()+"): 0×1 ") || !strings.Contains(c, "16K×16 ") || !strings.Contains(c, "prefill 16K ") {
		t.Errorf("cells %q, want every decode cell that runs and the prefill's TTFT, labelled", c)
	}
}

func TestFailureSuggestsTheDemo(t *testing.T) {
	_, err := predict.Request{Model: "org/m", Snapshot: &hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found"}}.Do(context.Background())
	got := predicted.Failure(err)
	if !strings.Contains(got, "no NVIDIA driver found") || !strings.Contains(got, "demo") || !strings.HasSuffix(got, ".") {
		t.Errorf("no card reads %q, want one sentence with the cause and the demo", got)
	}
}
