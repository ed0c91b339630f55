package results_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/ui/results"
)

// Columns of the measurements table used here (see columns.go).
const (
	colContext = 1
	colTokS    = 4
)

func run() *bench.Run {
	return &bench.Run{UUID: "0b7c6a52-8f7e-4b53-9d4e-2f1b3c4d5e6f", Simulated: true, Server: bench.Server{Model: "sim/model"},
		Status: bench.RunComplete, Cells: []bench.Cell{
			{Phase: bench.PhaseDecode, Context: 0, Concurrency: 1, Status: bench.StatusValid, TotalTokS: 50.3, TTFTMs: 81},
			{Phase: bench.PhaseDecode, Context: 0, Concurrency: 32, Status: bench.StatusValid, TotalTokS: 890.6, TTFTMs: 2368},
			{Phase: bench.PhaseDecode, Context: 1024, Concurrency: 1, Status: bench.StatusValid, TotalTokS: 48.1, TTFTMs: 140},
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
	if got := column(v.Rows(), colContext); got[2] != bench.ContextLabel(1024) {
		t.Errorf("ascending by context ends with %q", got[2])
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
