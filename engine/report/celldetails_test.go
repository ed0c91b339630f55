package report_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCellDetails (issue 41): a cell's details carry its window and ramp,
// its figures with ±, the server's cross-check, the runner's notes and
// its bottleneck, in the registry's words; a figure the cell lacks is left
// out, not printed as 0.
func TestCellDetails(t *testing.T) {
	diff := 0.4
	r := &rundoc.Run{Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{16}, DurationS: 30, WindowOpens: rundoc.OpensSteady}}
	r.Cells = []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 16, Status: rundoc.StatusValid,
		TotalTokS: 568.34, TotalTokSCI95: 4.21, TTFTMs: 90, MeasuredS: 30, OutputTokens: 17050,
		RooflinePct: diagnose.BandwidthBoundPct + 5, Reason: "the server counted 0.4% more tokens",
		CellChecks: rundoc.CellChecks{ServerOutputTokens: 17118, ServerTokenDiffPct: &diff},
		CellWindow: rundoc.CellWindow{RampS: 2.5, Readiness: "streams_with_tokens=16/16"}}}
	got := map[string]string{}
	for _, d := range report.CellDetails(r, &r.Cells[0]) {
		got[d.Label] = d.Text
	}
	for label, want := range map[string]string{
		"Cell":                    "decode 0×16",
		"Status":                  "Valid",
		"Window":                  "30 s",
		"Window opens":            "at steady state",
		"Ramp to steady state":    "2.5 s",
		"At the window's opening": "streams_with_tokens=16/16",
		rundoc.FigRate.Title:      rundoc.FigRate.WithUnitCI(&r.Cells[0]),
		rundoc.FigTTFT.Title:      "90 ms",
		"Notes":                   "the server counted 0.4% more tokens",
	} {
		if got[label] != want {
			t.Errorf("%s = %q, want %q", label, got[label], want)
		}
	}
	if !strings.Contains(got[rundoc.FigRate.Title], "±") {
		t.Errorf("rate without its ±: %q", got[rundoc.FigRate.Title])
	}
	if got[rundoc.FigServerTokenDiff.Title] == "" || got[rundoc.FigServerOutputTokens.Title] != "17118" {
		t.Errorf("server cross-check missing: %v", got)
	}
	if !strings.HasPrefix(got["Limited by"], diagnose.Bandwidth.Title()) {
		t.Errorf("bottleneck %q, want %s", got["Limited by"], diagnose.Bandwidth.Title())
	}
	if _, ok := got[rundoc.FigPowerW.Title]; ok {
		t.Errorf("a figure the cell lacks is listed: %q", got[rundoc.FigPowerW.Title])
	}
	if report.CellDetails(r, nil) != nil {
		t.Error("details of no cell")
	}
}

// A drafting cell's details give its drafting figures and its acceptance
// by draft position.
func TestCellDetailsOfADraftingCell(t *testing.T) {
	c := &rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 300, MeasuredS: 30,
		CellSpec: rundoc.CellSpec{SpecAcceptRate: 0.651, SpecAcceptLengthEff: 2.3, StepsPerS: 130.4, SpecPosAccept: []float64{0.78, 0.523}}}
	got := map[string]string{}
	for _, d := range report.CellDetails(nil, c) {
		got[d.Label] = d.Text
	}
	for label, want := range map[string]string{"Accepted %": "65.1 %", "Tokens/step": "2.30", "Steps/s": "130.4 steps/s",
		"Accepted by draft position": "1: 78.0%, 2: 52.3%"} {
		if got[label] != want {
			t.Errorf("%s: %q, want %q", label, got[label], want)
		}
	}
}
