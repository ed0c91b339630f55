package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestReportsKeepBurstApart (issue 39): the Markdown and HTML reports give
// burst cells a table of their own, with their latency and its ±, and keep
// them out of the table of all measurements; the CSV writes them as burst
// rows with their own columns and reads them back; a comparison compares
// burst cells under their own heading, never in the decode tables.
func TestReportsKeepBurstApart(t *testing.T) {
	run := burstRun()
	b := &run.Cells[1]
	latency := rundoc.FigLatency.TextCI(b) // "785 ± 3.71"

	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	before, after, ok := strings.Cut(md.String(), "\n## Burst: ")
	burst, all, _ := strings.Cut(after, "\n## All measurements")
	if !ok || !strings.Contains(burst, "| 0×4 | "+latency+" |") || strings.Contains(before, latency) ||
		strings.Contains(all, "| burst |") {
		t.Errorf("Markdown: the burst table is missing or mixed in:\n%s", md.String())
	}

	var html bytes.Buffer
	if err := report.WriteHTML(&html, []*rundoc.Run{run}, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(html.String(), `<section id="burst">`)
	section, rest, _ := strings.Cut(section, "</section>")
	if !ok || !strings.Contains(section, "<td>"+latency+"</td>") || strings.Contains(rest, `<td class="l">burst</td>`) {
		t.Errorf("HTML: the burst section is missing or burst cells are among all measurements:\n%s", section)
	}

	var csv bytes.Buffer
	if err := report.WriteCSV(&csv, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "latency_ms,latency_ms_ci95,") || !strings.Contains(csv.String(), "\nburst,0,0,4,Valid,") {
		t.Errorf("CSV:\n%s", csv.String())
	}
	back, err := report.ReadReferenceCSV(&csv)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Find(rundoc.PhaseBurst, 0, 4)
	if got == nil || rundoc.FigLatency.TextCI(got) != latency || got.RequestCount != 16 || rundoc.FigRequestsPerS.TextCI(got) != rundoc.FigRequestsPerS.TextCI(b) ||
		back.Plan.Burst != rundoc.BurstAfter || back.Find(rundoc.PhaseDecode, 0, 4) == nil {
		t.Errorf("the CSV read back: plan burst %q, burst cell %+v", back.Plan.Burst, got)
	}

	other := burstRun()
	other.UUID = "5f0c1f5e-8a41-4d0e-b1c3-0c7f2f4b9a11"
	other.Cells[1].LatencyMs = 700
	var cmp bytes.Buffer
	if err := report.WriteCompareMarkdown(&cmp, []*rundoc.Run{run, other}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmp.String(), "## Burst "+rundoc.FigLatency.Label) || !strings.Contains(cmp.String(), "## Burst "+rundoc.FigBurstTokS.Label) {
		t.Errorf("the comparison has no burst tables:\n%s", cmp.String())
	}
	_, decode, _ := strings.Cut(cmp.String(), "## Decode "+rundoc.FigTotalTokS.Label)
	decode, _, _ = strings.Cut(decode, "\n## ")
	if strings.Contains(decode, "322.1") || !strings.Contains(decode, "330.5") {
		t.Errorf("the decode comparison holds the burst cell's tok/s, or lacks the sustained one:\n%s", decode)
	}
}
