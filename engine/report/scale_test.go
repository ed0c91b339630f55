package report_test

import (
	"io"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/cputime"
)

// contextsRun is a run with n decode contexts (one concurrency each) and n
// prefill contexts: what a hostile import of many contexts looks like.
func contextsRun(n int) *rundoc.Run {
	r := &rundoc.Run{Schema: rundoc.Schema, UUID: "0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c", Status: rundoc.RunComplete,
		CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := range n {
		r.Cells = append(r.Cells,
			rundoc.Cell{Phase: rundoc.PhaseDecode, Context: (n - i) * 16, Concurrency: 1 + i%3, Status: rundoc.StatusValid, TotalTokS: float64(100 + i%50), TTFTMs: 10},
			rundoc.Cell{Phase: rundoc.PhasePrefill, Context: (n - i) * 16, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: float64(1000 + i%50), TTFTMs: 10})
	}
	return r
}

// cpuOfReports is the least CPU time of tries runs writing the HTML and
// Markdown reports of r.
func cpuOfReports(t *testing.T, r *rundoc.Run, tries int) time.Duration {
	t.Helper()
	best := time.Duration(1 << 62)
	for range tries {
		start := cputime.Process()
		if err := report.WriteHTML(io.Discard, []*rundoc.Run{r}, report.HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteMarkdown(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		best = min(best, cputime.Process()-start)
	}
	return best
}

// TestReportsScaleInContexts: sixteen times the contexts cost about
// sixteen times the time (n log n), not 256 or 4096 times (issue 12 #6:
// 1,000 contexts took 0.59 s, 4,000 took 28.5 s, 60,000 did not finish).
// The bound of 64× leaves room for a loaded machine and is far below what
// a quadratic (256×) or cubic (4096×) report would take.
//
// Not parallel: the process's CPU time must be this test's alone.
func TestReportsScaleInContexts(t *testing.T) {
	small := cpuOfReports(t, contextsRun(250), 3)
	large := cpuOfReports(t, contextsRun(4000), 1)
	ratio := float64(large) / float64(small)
	t.Logf("250 contexts %v, 4000 contexts %v: %.1f×", small, large, ratio)
	if ratio > 64 {
		t.Errorf("16× the contexts took %.0f× the time (%v → %v); want about 16×", ratio, small, large)
	}
}
