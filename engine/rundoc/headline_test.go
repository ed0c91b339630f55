package rundoc

import (
	"strings"
	"testing"
)

// TestHeadlineOnlyFromValidCells (issue 41): the headline reads the best
// decode rate, the one-stream rate and the TTFT at 16K from Valid cells
// only; an Unreliable cell faster than all, a queued one and a failed
// 16K prefill are left out, with the registry's decimals and units.
func TestHeadlineOnlyFromValidCells(t *testing.T) {
	r := &Run{Cells: []Cell{
		{Phase: PhaseDecode, Context: 0, Concurrency: 1, Status: StatusValid, TotalTokS: 49.06, TTFTMs: 40},
		{Phase: PhaseDecode, Context: 0, Concurrency: 16, Status: StatusValid, TotalTokS: 568.34, TTFTMs: 90},
		{Phase: PhaseDecode, Context: 0, Concurrency: 32, Status: StatusUnreliable, TotalTokS: 9000, Reason: "counter +79.7%: x"},
		{Phase: PhaseDecode, Context: 0, Concurrency: 64, Status: StatusQueued, TotalTokS: 800},
		{Phase: PhaseDecode, Context: 1024, Concurrency: 1, Status: StatusUnreliable, TotalTokS: 70},
		{Phase: PhasePrefill, Context: 8192, Concurrency: 1, Status: StatusValid, TTFTMs: 700, PromptTokS: 11000},
		{Phase: PhasePrefill, Context: 16384, Concurrency: 1, Status: StatusValid, TTFTMs: 1432.4, PromptTokS: 11400},
		{Phase: PhasePrefill, Context: 32768, Concurrency: 1, Status: StatusValid, TTFTMs: 3100, PromptTokS: 10500},
	}}
	h := HeadlineOf(r)
	if got, want := h.Text(), "best 568.3 tok/s at 0×16 · one stream 49.1 tok/s · TTFT at 16K 1432 ms"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if h.Best != &r.Cells[1] || h.OneStream != &r.Cells[0] || h.TTFT != &r.Cells[6] {
		t.Errorf("headline cells = %v %v %v", h.Best, h.OneStream, h.TTFT)
	}

	// Without a Valid 16K prefill cell, the longest Valid prompt.
	r.Cells[6].Status = StatusFailed
	if got := HeadlineOf(r).Text(); !strings.HasSuffix(got, "TTFT at 32K 3100 ms") {
		t.Errorf("without 16K: %q", got)
	}

	// Nothing Valid: no figure at all, and the headline says so.
	for i := range r.Cells {
		r.Cells[i].Status = StatusUnreliable
	}
	h = HeadlineOf(r)
	if h.Best != nil || h.OneStream != nil || h.TTFT != nil || h.Text() != NoHeadline {
		t.Errorf("no Valid cell: %+v %q", h, h.Text())
	}
	if got := HeadlineOf(nil).Text(); got != NoHeadline {
		t.Errorf("nil run: %q", got)
	}
}
