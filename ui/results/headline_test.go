//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package results_test

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/results"
)

// TestHeadlineCard (issue 41): Results shows the run's headline above the
// matrix, read from its Valid cells (an Unreliable cell faster than all is
// left out); a run with no Valid cell says so; no run, no card.
func TestHeadlineCard(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	w := test.NewWindow(v.Content())
	defer w.Close()
	r := run()
	r.Cells = append(r.Cells, rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 64,
		Status: rundoc.StatusUnreliable, TotalTokS: 5000, Reason: "counter +79.7%: the client fell behind"})
	v.SetRun(r, nil)
	if got, want := v.Headline(), "best 890.6 tok/s at 0×32 · one stream 50.3 tok/s"; got != want {
		t.Errorf("headline %q, want %q", got, want)
	}
	if got := v.Headline(); got != rundoc.HeadlineOf(r).Text() {
		t.Errorf("the card %q is not rundoc's headline", got)
	}
	for i := range r.Cells {
		r.Cells[i].Status = rundoc.StatusUnreliable
	}
	v.SetRun(r, nil)
	if got := v.Headline(); got != rundoc.NoHeadline {
		t.Errorf("no Valid cell: headline %q, want %q", got, rundoc.NoHeadline)
	}
	v.SetRun(nil, nil)
	if got := v.Headline(); got != "" {
		t.Errorf("no run: headline %q", got)
	}
}
