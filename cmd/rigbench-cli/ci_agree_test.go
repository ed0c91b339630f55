package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/results"
)

// ciRun is oneCellRun measured with adaptive windows, with the 95%
// half-widths a run now carries.
func ciRun() *rundoc.Run {
	r := oneCellRun()
	r.Plan.Window, r.Plan.Precision = rundoc.WindowAuto, 0.01
	c := &r.Cells[0]
	c.TotalTokSCI95, c.PerRequestTokSCI95, c.TTFTMsCI95, c.TBTMsCI95 = 1.234, 0.37, 45.6, 0.04
	return r
}

// The ± of a cell reads the same in every output (CSV columns, Markdown,
// HTML, the CLI's matrix, the app's table and matrix, the chart's error
// bars), with the registry's decimals (issue 15).
func TestUncertaintyReadsTheSameEverywhere(t *testing.T) {
	r := ciRun()
	c := &r.Cells[0]
	render := func(f report.Format, o report.Options, runs ...*rundoc.Run) string {
		var b bytes.Buffer
		if err := report.Write(&b, f, runs, o); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	md, html := render(report.Markdown, report.Options{}, r), render(report.HTML, report.Options{}, r)
	var cli bytes.Buffer
	printResults(&cli, r)

	want := map[string]string{"total_tok_s": "213.3 ± 1.2", "per_request_tok_s": "26.6 ± 0.4",
		"ttft_ms": "6198 ± 46", "tbt_ms": "31.5 ± 0.04"}
	for _, f := range []rundoc.Figure{rundoc.FigRate, rundoc.FigPerRequestTokS, rundoc.FigTTFT, rundoc.FigTBT} {
		if got := f.TextCI(c); got != want[f.Key] {
			t.Errorf("%s: registry %q, want %q", f.Key, got, want[f.Key])
		}
		if !strings.Contains(md, " "+want[f.Key]+" |") || !strings.Contains(html, ">"+want[f.Key]+"<") {
			t.Errorf("%s: Markdown or HTML lacks %q", f.Key, want[f.Key])
		}
	}
	if line := rundoc.MatrixText(c); line != "213.3 ± 1.2 · 6198 ms" || !strings.Contains(cli.String(), line) {
		t.Errorf("MatrixText = %q; CLI:\n%s", line, cli.String())
	}

	recs, err := csv.NewReader(strings.NewReader(render(report.CSV, report.Options{}, r))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	field := map[string]string{}
	for i, h := range recs[0] {
		field[h] = recs[1][i]
	}
	for key, v := range map[string]string{"total_tok_s_ci95": "1.23", "per_request_tok_s_ci95": "0.37", "ttft_ms_ci95": "45.6", "tbt_ms_ci95": "0.04"} {
		if field[key] != v {
			t.Errorf("CSV %s = %q, want %q", key, field[key], v)
		}
	}

	test.NewTempApp(t)
	app := results.New()
	app.SetRun(r, nil)
	if row := strings.Join(app.Rows()[0], "|"); !strings.Contains(row, "|213.3 ± 1.2|") {
		t.Errorf("app row %q lacks the total's ±", row)
	}
	if l1, _, _ := app.Matrix().Lines(16384, 8); l1 != "213.3 ± 1.2 tok/s" {
		t.Errorf("app matrix line %q, want 213.3 ± 1.2 tok/s", l1)
	}
	if svg := render(report.SVG, report.Options{Chart: chart.DecodeTotal}, r); !strings.Contains(svg, "bar: 95% interval") {
		t.Error("the throughput chart has no error bars")
	}
}

// A comparison says "no significant change" for a change within the two
// runs' combined uncertainty, a percentage for a larger one, and names the
// window method where the runs differ (issue 15).
func TestCompareWeighsUncertainty(t *testing.T) {
	a, small, large := ciRun(), ciRun(), ciRun()
	small.UUID, large.UUID = "b", "c"
	small.Cells[0].TotalTokS += 1.5 // within √(1.234² + 1.234²) = 1.75
	large.Cells[0].TotalTokS += 4
	large.Plan.Window, large.Plan.Precision = rundoc.WindowFixed, 0
	var b bytes.Buffer
	if err := report.Write(&b, report.Markdown, []*rundoc.Run{a, small, large}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	tab := report.Compare([]*rundoc.Run{a, small, large}, rundoc.FigTotalTokS)
	if got := tab.Rows[0].Entries[1].ChangeText(); got != report.NoSignificantChange {
		t.Errorf("a change of 1.5 ± 1.75: %q, want %q", got, report.NoSignificantChange)
	}
	if got := tab.Rows[0].Entries[2].ChangeText(); got != "+1.9%" {
		t.Errorf("a change of 4 ± 1.75: %q, want +1.9%%", got)
	}
	for _, s := range []string{report.NoSignificantChange, "+1.9%", "auto (±1%, at most 30 s) windows", "30 s windows"} {
		if !strings.Contains(md, s) {
			t.Errorf("the comparison lacks %q:\n%s", s, md)
		}
	}
}
