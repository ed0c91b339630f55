//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package results_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/results"
)

// Columns of the measurements table used here (see columns.go).
const (
	colContext = 1
	colTokS    = 4
)

func run() *rundoc.Run {
	return &rundoc.Run{UUID: "0b7c6a52-8f7e-4b53-9d4e-2f1b3c4d5e6f", Simulated: true, Server: rundoc.Server{Model: "sim/model"},
		Status: rundoc.RunComplete, Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50.3, TTFTMs: 81},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 32, Status: rundoc.StatusValid, TotalTokS: 890.6, TTFTMs: 2368},
			{Phase: rundoc.PhaseDecode, Context: 1024, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 48.1, TTFTMs: 140},
		}}
}

func column(rows [][]string, col int) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[col])
	}
	return out
}

// Tapping a header sorts by it; tapping again reverses.
func TestMeasurementsSort(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	done := make(chan struct{})
	v.SetRun(run(), func() { close(done) })
	<-done
	if n := len(v.Rows()); n != 3 {
		t.Fatalf("%d rows, want 3", n)
	}
	v.SortBy(colTokS)
	if got := strings.Join(column(v.Rows(), colTokS), " "); got != "48.1 50.3 890.6" {
		t.Errorf("ascending by tok/s: %s", got)
	}
	v.SortBy(colTokS)
	if got := strings.Join(column(v.Rows(), colTokS), " "); got != "890.6 50.3 48.1" {
		t.Errorf("descending by tok/s: %s", got)
	}
	v.SortBy(colContext)
	if got := column(v.Rows(), colContext); got[2] != rundoc.ContextLabel(1024) {
		t.Errorf("ascending by context ends with %q", got[2])
	}
}

// The table lists cells as the exports do, prefill first, whatever
// order they ran in: an adaptive run puts its prefill cell between the
// decode rows.
func TestMeasurementsExportOrder(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	r := run()
	r.Cells = append(r.Cells[:1:1], append([]rundoc.Cell{{Phase: rundoc.PhasePrefill, Context: 1024, Concurrency: 1,
		Status: rundoc.StatusValid, PromptTokS: 2000}}, r.Cells[1:]...)...)
	done := make(chan struct{})
	v.SetRun(r, func() { close(done) })
	<-done
	var got []string
	for _, row := range v.Rows() {
		got = append(got, row[0]+" "+row[colContext]+"×"+row[2])
	}
	if want := "prefill 1K×1,decode 0×1,decode 0×32,decode 1K×1"; strings.Join(got, ",") != want {
		t.Errorf("rows %s, want %s", strings.Join(got, ","), want)
	}
}

// A simulated run says so, and the matrix shows its figures.
func TestSimulatedRunLabelled(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	done := make(chan struct{})
	r := run()
	v.SetRun(r, func() { close(done) })
	<-done
	if s := strings.ToLower(results.Title(r) + " " + results.Summary(r)); !strings.Contains(s, "simulated") {
		t.Errorf("title and summary %q do not say simulated", s)
	}
	if l1, _, ok := v.Matrix().Lines(0, 32); !ok || l1 != "890.6 tok/s" {
		t.Errorf("matrix 0×32 = %q", l1)
	}
}

// A run that failed before its first cell shows its stored error and the
// server it tried, and says nothing was measured instead of "No run yet."
// under empty tabs.
func TestFailedRunShowsErrorAndServer(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	r := &rundoc.Run{UUID: "d5c84cbc-0000-4000-8000-000000000000", Status: rundoc.RunFailed,
		Error:    "connecting to http://127.0.0.1:9/v1: connection refused",
		Hardware: &hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found (libnvidia-ml.so.1)"}}
	done := make(chan struct{})
	v.SetRun(r, func() { close(done) })
	<-done
	if got := v.Failed(); !strings.Contains(got, "http://127.0.0.1:9/v1: connection refused") || !strings.HasSuffix(got, ".") {
		t.Errorf("failure line %q, want the stored error as a sentence", got)
	}
	if got := v.Server(); !strings.Contains(got, "existing endpoint") {
		t.Errorf("server line %q, want the endpoint named", got)
	}
	if !v.Empty() {
		t.Error("a run without cells shows empty tabs")
	}
	v.SetRun(run(), nil)
	if v.Failed() != "" || v.Server() != "" || v.Empty() {
		t.Error("a complete run still shows the failed run's lines")
	}
}

// The header never passes a driver error off as a GPU name, and for a run
// against an existing endpoint never passes this computer's card off as the
// server's.
func TestHeaderGPUWording(t *testing.T) {
	none := &hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found (libnvidia-ml.so.1)"}
	card := &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}}
	launched := &rundoc.Launch{Image: "vllm/vllm-openai:latest"}
	for _, c := range []struct {
		r         rundoc.Run
		want, not string
	}{
		{rundoc.Run{Hardware: none, Launch: launched}, "GPU: none detected on this computer", "libnvidia"},
		{rundoc.Run{Hardware: none}, "endpoint's GPU not recorded", "libnvidia"},
		{rundoc.Run{Hardware: card}, "this computer: ", ""},
		{rundoc.Run{Hardware: card, Launch: launched}, "RTX 3060", "this computer"},
		{rundoc.Run{Hardware: card, Origin: rundoc.OriginImported}, "RTX 3060", "this computer"},
		// The method is said where the run records it (issue 22).
		{rundoc.Run{Hardware: card, Plan: rundoc.Plan{WindowOpens: rundoc.OpensSteady, Prompts: rundoc.PromptsShared}},
			"steady-state windows · shared prompts", ""},
	} {
		got := results.Summary(&c.r)
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("summary %q, want %q and not %q", got, c.want, c.not)
		}
	}
}

// Issue 16 item 6: at 1280 px the charts fill the width (two side by side,
// not one 720-unit chart with the rest empty), and a decode row whose
// window ended before any request did says 0 requests, not nothing.
func TestChartsFillWidthAndRequestsShow(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	w := test.NewWindow(v.Content())
	defer w.Close()
	w.Resize(fyne.NewSize(1280, 800))
	done := make(chan struct{})
	v.SetRun(run(), func() { close(done) })
	<-done
	v.Tabs().SelectIndex(3)
	w.Resize(fyne.NewSize(1281, 800))
	if s := v.ChartSize(); s.Width < 600 || s.Width > 650 {
		t.Errorf("at 1280 px a chart is %.0f wide, want about half the window", s.Width)
	}
	w.Resize(fyne.NewSize(900, 600))
	if s := v.ChartSize(); s.Width < 850 {
		t.Errorf("at 900 px a chart is %.0f wide, want the whole width", s.Width)
	}
	var req int
	for i, h := range v.Headers() {
		if h == rundoc.FigCompleted.Title {
			req = i
		}
	}
	for _, row := range v.Rows() {
		if row[req] != "0" {
			t.Errorf("requests of %v = %q, want 0", row[:3], row[req])
		}
	}
}

// The Resume button shows for a run measured here with cells left without
// a result, says how many, and hands the run to OnResume; a complete or an
// imported run has none (issue 29).
func TestResumeButton(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	var resumed *rundoc.Run
	v.OnResume = func(r *rundoc.Run) { resumed = r }

	stopped := run()
	stopped.Origin, stopped.Status = rundoc.OriginMeasured, rundoc.RunFailed
	stopped.Plan = rundoc.Plan{Contexts: []int{0, 1024}, Concurrency: []int{1, 32}}
	stopped.Cells[1].Status = rundoc.StatusFailed // 0×32 failed, 1K×32 never ran
	stopped.Error = "the server at http://127.0.0.1:8000 stopped answering during cell decode 0×32"
	v.SetRun(stopped, nil)
	b := v.ResumeButton()
	if !b.Visible() || !strings.Contains(b.Text, "2 cell(s)") {
		t.Fatalf("Resume button visible %v, text %q; want it, naming 2 cells", b.Visible(), b.Text)
	}
	test.Tap(b)
	if resumed != stopped {
		t.Errorf("OnResume got %v, want the run shown", resumed)
	}

	complete := run()
	complete.Origin = rundoc.OriginMeasured
	complete.Plan = rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 32}}
	imported := *stopped
	imported.Origin = rundoc.OriginImported
	for name, r := range map[string]*rundoc.Run{"complete": complete, "imported": &imported} {
		v.SetRun(r, nil)
		if b.Visible() {
			t.Errorf("%s run: Resume shows (%q)", name, b.Text)
		}
	}
}

// Issue 24 item 8: the measurements table's columns are as wide as their
// figures with their ± ("2199.6 ± 12.34" was "2199.6 ± …"), and a TTFT
// quantile that falls on requests with no first token says "> window"
// instead of a blank.
func TestMeasurementsColumnsFitTheirFigures(t *testing.T) {
	test.NewTempApp(t)
	r := run()
	r.Cells[1].TotalTokS, r.Cells[1].TotalTokSCI95 = 2199.6, 12.34
	r.Cells[2].NeverStarted, r.Cells[2].TTFTP90Ms = 3, 0
	v := results.New()
	done := make(chan struct{})
	v.SetRun(r, func() { close(done) })
	<-done
	rows := v.Rows()
	for col, h := range v.Headers() {
		for _, row := range rows {
			need := fyne.MeasureText(row[col], theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
			if got := v.ColumnWidth(col); got < need && got < 420 {
				t.Errorf("column %s is %.0f wide, %q needs %.0f", h, got, row[col], need)
			}
		}
	}
	p90 := -1
	for i, h := range v.Headers() {
		if h == rundoc.FigTTFTP90.Title {
			p90 = i
		}
	}
	if got := rows[2][p90]; got != results.NoFirstToken {
		t.Errorf("TTFT p90 of a cell whose requests never started = %q, want %q", got, results.NoFirstToken)
	}
}
