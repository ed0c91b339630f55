package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/results"
)

// oneCellRun is a run of a single decode cell whose figures carry more
// decimals than any output prints, so each output's rounding shows.
func oneCellRun() *rundoc.Run {
	c := rundoc.Cell{
		Phase: rundoc.PhaseDecode, Context: 16384, Concurrency: 8, Status: rundoc.StatusValid,
		TotalTokS: 213.2871, PerRequestTokS: 26.6123, TTFTMs: 6197.64, TTFTP90Ms: 7012.51, TTFTP99Ms: 7200.49,
		TBTMs: 31.4567, TBTP90Ms: 35.0501, TBTP99Ms: 40.2349, AvgActive: 7.98765, CompletedRequests: 3,
		OutputTokens: 6401, MeasuredS: 30.0004, EnergyJPerToken: 0.81234, RooflinePct: 63.4567,
		GPUStats: &hardware.GPUStats{PowerMeanW: 173.26}, ServerStats: &rundoc.ServerStats{Samples: 30, KVUsageMax: 0.4237},
		CellChecks: rundoc.CellChecks{RetriedRequests: 2, NeverStarted: 1, ServerOutputTokens: 6412, CheckedOutputTokens: 6401,
			ServerTokenDiffPct: rundoc.Reported(0.1718, true), ServerDecodeTokS: 27.4321},
		CellWindow: rundoc.CellWindow{PerRequestTokSWindow: 21.4567, TBTMsWindow: 46.7123},
		CellSpec: rundoc.CellSpec{SpecAcceptRate: 0.654321, SpecAcceptLengthEff: 2.345678, StepsPerS: 90.87654,
			ProjectedTokS: 272.62962},
	}
	// The server cross-check's figures (promoted fields of an embedded
	// struct, so set one by one).
	c.RetriedRequests, c.NeverStarted, c.ServerOutputTokens, c.CheckedOutputTokens = 2, 1, 6399, 6401
	c.ServerTokenDiffPct, c.ServerDecodeTokS = rundoc.Reported(-0.03124, true), 33.4567
	return &rundoc.Run{
		Schema: rundoc.Schema, UUID: "9a7c1e44-5b2d-4f6e-8a1b-0c2d3e4f5a6b", Status: rundoc.RunComplete,
		CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Plan:      rundoc.Plan{Contexts: []int{16384}, Concurrency: []int{8}, DurationS: 30, MaxOutput: 1024},
		Server:    rundoc.Server{Model: "agents/a1-4b-fp8", Engine: "vllm", Version: "0.32.0", KVCapacitySource: rundoc.KVSourceUnknown},
		Cells:     []rundoc.Cell{c},
	}
}

// One cell rendered through every output (the CLI's table, CSV, Markdown,
// HTML, the matrix chart's labels, the app's columns and matrix) reads the
// same in each: every figure's decimals come from the registry (issue 11).
func TestOneCellReadsTheSameEverywhere(t *testing.T) {
	r := oneCellRun()
	c := &r.Cells[0]
	render := func(f report.Format, o report.Options) string {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{r}, o); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	var cli bytes.Buffer
	printResults(&cli, r)
	md, html := render(report.Markdown, report.Options{}), render(report.HTML, report.Options{})
	svg := render(report.SVG, report.Options{Chart: chart.Matrix})

	test.NewTempApp(t)
	app := results.New()
	app.SetRun(r, nil)
	rows := app.Rows()
	if len(rows) != 1 {
		t.Fatalf("app table has %d rows, want 1", len(rows))
	}
	appRow := strings.Join(rows[0], "|")

	recs, err := csv.NewReader(strings.NewReader(render(report.CSV, report.Options{}))).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	csvField := map[string]string{}
	for i, h := range recs[0] {
		csvField[h] = recs[1][i]
	}

	for _, f := range rundoc.MeasurementFigures {
		if f.Phase != "" && f.Phase != c.Phase {
			continue // a prefill cell's figure (server prompt tok/s): never on this decode cell
		}
		want := f.Text(c)
		if want == "" {
			t.Fatalf("%s: the cell lacks the figure", f.Key)
		}
		if v, ok := csvField[f.Key]; ok && v != want {
			t.Errorf("%s: CSV %q, registry %q", f.Key, v, want)
		}
		if !strings.Contains(md, " "+want+" |") {
			t.Errorf("%s: Markdown lacks %q", f.Key, want)
		}
		if !strings.Contains(html, ">"+want+"<") {
			t.Errorf("%s: HTML lacks %q", f.Key, want)
		}
		if !strings.Contains("|"+appRow+"|", "|"+want+"|") {
			t.Errorf("%s: app row %q lacks %q", f.Key, appRow, want)
		}
	}
	if want := rundoc.FigRoofline.WithUnit(c); !strings.Contains(cli.String(), want) {
		t.Errorf("CLI lacks the roofline figure %q:\n%s", want, cli.String())
	}
	line := rundoc.MatrixText(c)
	if line != "213.3 · 6198 ms" {
		t.Errorf("MatrixText = %q", line)
	}
	if !strings.Contains(cli.String(), line) || !strings.Contains(md, "| "+line+" |") {
		t.Errorf("CLI or Markdown matrix lacks %q:\n%s", line, cli.String())
	}
	l1, l2 := rundoc.MatrixLines(c)
	if a1, a2, _ := app.Matrix().Lines(16384, 8); a1 != l1 || a2 != l2 {
		t.Errorf("app matrix %q / %q, registry %q / %q", a1, a2, l1, l2)
	}
	if !strings.Contains(html, l1) || !strings.Contains(html, l2) {
		t.Errorf("HTML matrix lacks %q / %q", l1, l2)
	}
	for _, s := range []string{rundoc.FigTotalTokS.Text(c), rundoc.FigTTFT.WithUnit(c)} {
		if !strings.Contains(svg, s) {
			t.Errorf("matrix chart lacks the label %q", s)
		}
	}
}

// A two-GPU cell's energy lines read the same in the CLI's table, the
// Markdown and HTML reports and the app's Diagnosis tab: one wording
// (rundoc.EnergyLines), each GPU's J/token and power with the registry's
// decimals.
func TestEnergyLinesReadTheSameEverywhere(t *testing.T) {
	r := oneCellRun()
	r.Cells[0].GPUStats = &hardware.GPUStats{PowerMeanW: 173.26, EnergySource: hardware.EnergyFromCounter, PerGPU: []hardware.GPUPower{
		{GPU: 0, PowerMeanW: 87.61, TempMaxC: 66.4, EnergyJPerToken: 0.40877}, {GPU: 1, PowerMeanW: 85.65, EnergyJPerToken: 0.40357}}}
	line := "16K×8: 0.812 J/token on 2 GPUs: GPU 0 0.409 J/token, 88 W mean, 66 °C max; GPU 1 0.404 J/token, 86 W mean"
	var cli bytes.Buffer
	printResults(&cli, r)
	outputs := map[string]string{"CLI": cli.String()}
	for _, f := range []report.Format{report.Markdown, report.HTML} {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{r}, report.Options{}); err != nil {
			t.Fatal(err)
		}
		outputs[string(f)] = b.String()
	}
	outputs["app"] = results.DiagnosisText(r)
	for name, out := range outputs {
		if !strings.Contains(out, line) {
			t.Errorf("%s lacks %q:\n%s", name, line, out)
		}
	}
}
