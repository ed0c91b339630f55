package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCSVKeepsUncertainty: a run with 95% half-widths writes them as
// <figure>_ci95 columns after the reference columns, and reading the CSV
// back keeps them; a run without any keeps exactly the reference columns.
func TestCSVKeepsUncertainty(t *testing.T) {
	r := &rundoc.Run{Cells: []rundoc.Cell{
		{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 2341, PromptTokSCI95: 12.5},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 180.3, TotalTokSCI95: 1.25,
			PerRequestTokS: 45.2, PerRequestTokSCI95: 0.5, TTFTMs: 547, TTFTMsCI95: 20.5, TBTMs: 22.1, TBTMsCI95: 0.05, MeasuredS: 8.5},
	}}
	var b bytes.Buffer
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	header := strings.SplitN(b.String(), "\n", 2)[0]
	if want := strings.Join(report.CSVColumns, ",") + ",total_tok_s_ci95,per_request_tok_s_ci95,ttft_ms_ci95,tbt_ms_ci95"; header != want {
		t.Errorf("header %q, want %q", header, want)
	}
	back, err := report.ReadReferenceCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	p, d := back.Find(rundoc.PhasePrefill, 8192, 1), back.Find(rundoc.PhaseDecode, 0, 4)
	if p == nil || d == nil || p.PromptTokSCI95 != 12.5 || d.TotalTokSCI95 != 1.25 || d.PerRequestTokSCI95 != 0.5 ||
		d.TTFTMsCI95 != 20.5 || d.TBTMsCI95 != 0.05 {
		t.Errorf("read back: prefill %+v, decode %+v", p, d)
	}

	r.Cells[0].PromptTokSCI95, r.Cells[1] = 0, rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 49.6}
	b.Reset()
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	if header := strings.SplitN(b.String(), "\n", 2)[0]; header != strings.Join(report.CSVColumns, ",") {
		t.Errorf("a run without ±: header %q, want the reference columns", header)
	}
}

// TestCSVKeepsRoofline: a run whose decode cells have their share of the
// bandwidth roofline writes it as the roofline_pct column, with the
// registry's decimals, and reading the CSV back keeps it.
func TestCSVKeepsRoofline(t *testing.T) {
	r := &rundoc.Run{Cells: []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 47.6, MeasuredS: 20, RooflinePct: 65.5},
	}}
	var b bytes.Buffer
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], ","+rundoc.FigRoofline.Key) || !strings.HasSuffix(lines[1], ",66") {
		t.Errorf("CSV:\n%s", b.String())
	}
	back, err := report.ReadReferenceCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Find(rundoc.PhaseDecode, 0, 1); c == nil || c.RooflinePct != 66 {
		t.Errorf("read back: %+v", c)
	}
}

// TestCSVKeepsServerCheck (issue 41 minor 16): a run whose cells were
// cross-checked against the server's counter writes its count and the
// difference as columns, beside the reason of an Unreliable cell, and
// reading the CSV back keeps them; an unchecked cell stays unchecked (a
// blank, never 0 %), and a difference below −100 % is refused.
func TestCSVKeepsServerCheck(t *testing.T) {
	lying, close := 79.7, -1.25
	r := &rundoc.Run{Cells: []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 47.6, MeasuredS: 20,
			CellChecks: rundoc.CellChecks{ServerOutputTokens: 950, ServerTokenDiffPct: &close}},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 4, Status: rundoc.StatusUnreliable, TotalTokS: 91.2, MeasuredS: 20,
			Reason:     "server counted 7,663 generated tokens, RigBench 4,265 (+79.7%)",
			CellChecks: rundoc.CellChecks{ServerOutputTokens: 7663, ServerTokenDiffPct: &lying}},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 8, Status: rundoc.StatusValid, TotalTokS: 300, MeasuredS: 20},
	}}
	var b bytes.Buffer
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	header := strings.SplitN(text, "\n", 2)[0]
	if !strings.HasSuffix(header, ",server_output_tokens,server_token_diff_pct,reason") {
		t.Errorf("header %q lacks the server's count, its difference and the reason", header)
	}
	if !strings.Contains(text, ",7663,79.7,") || !strings.Contains(text, ",950,-1.3,") && !strings.Contains(text, ",950,-1.2,") {
		t.Errorf("CSV:\n%s", text)
	}
	back, err := report.ReadReferenceCSV(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	u, ok, none := back.Find(rundoc.PhaseDecode, 0, 4), back.Find(rundoc.PhaseDecode, 0, 1), back.Find(rundoc.PhaseDecode, 0, 8)
	if u == nil || u.ServerOutputTokens != 7663 || u.ServerTokenDiffPct == nil || *u.ServerTokenDiffPct != 79.7 || !strings.Contains(u.Reason, "+79.7%") {
		t.Errorf("the Unreliable cell read back: %+v", u)
	}
	if ok == nil || ok.ServerTokenDiffPct == nil || *ok.ServerTokenDiffPct > -1.2 || *ok.ServerTokenDiffPct < -1.3 {
		t.Errorf("the checked cell read back: %+v", ok)
	}
	if none == nil || none.ServerTokenDiffPct != nil || none.ServerOutputTokens != 0 {
		t.Errorf("the unchecked cell read back as checked: %+v", none)
	}
	bad := strings.Replace(text, ",7663,79.7,", ",7663,-150,", 1)
	if _, err := report.ReadReferenceCSV(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "server_token_diff_pct") {
		t.Errorf("a difference of -150%% read as %v", err)
	}
}
