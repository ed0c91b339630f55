package matrix_test

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/matrix"
)

// run is a 2×2 decode matrix: two Valid cells at context 0, a queued one
// and one over capacity at 32K.
func run() *rundoc.Run {
	return &rundoc.Run{Cells: []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50.3, TTFTMs: 81},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 32, Status: rundoc.StatusValid, TotalTokS: 890.6, TTFTMs: 2368},
		{Phase: rundoc.PhaseDecode, Context: 32768, Concurrency: 1, Status: rundoc.StatusQueued, TotalTokS: 40.2, TTFTMs: 4100},
		{Phase: rundoc.PhaseDecode, Context: 32768, Concurrency: 32, Status: rundoc.StatusOverCapacity},
	}}
}

func TestCellsSayFiguresOrStatus(t *testing.T) {
	test.NewTempApp(t)
	m := matrix.New()
	m.SetRun(run())
	for _, tc := range []struct {
		ctx, n int
		l1, l2 string
	}{
		{0, 1, "50.3 tok/s", "TTFT 81 ms"},
		{0, 32, "890.6 tok/s", "TTFT 2368 ms"},
		{32768, 1, "40.2 tok/s", "queued · TTFT 4100 ms"},
		{32768, 32, "Over capacity", ""},
	} {
		l1, l2, ok := m.Lines(tc.ctx, tc.n)
		if !ok || l1 != tc.l1 || l2 != tc.l2 {
			t.Errorf("cell %d×%d = %q / %q (present %v), want %q / %q", tc.ctx, tc.n, l1, l2, ok, tc.l1, tc.l2)
		}
	}
	if _, _, ok := m.Lines(1024, 1); ok {
		t.Error("a cell outside the run's axes is shown")
	}
}

// Colour follows throughput: the fastest and slowest Valid cells differ,
// and the cell being measured says so until it is cleared.
func TestShadeAndRunningMark(t *testing.T) {
	test.NewTempApp(t)
	m := matrix.New()
	m.SetRun(run())
	if slow, fast := m.Fill(0, 1), m.Fill(0, 32); slow == nil || fast == nil || slow == fast {
		t.Errorf("fill of 50 tok/s %v and of 890 tok/s %v, want two different colours", slow, fast)
	}
	// The same scale as the exported charts: the fastest cell takes the top
	// of viridis, and a slower one its share of it, so the app and a PNG of
	// the same run agree.
	r := run()
	hi, slowest := 0.0, r.Cells[0].TotalTokS
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode && c.Status.Ran() {
			hi = max(hi, c.TotalTokS)
		}
	}
	if got, want := m.Fill(0, 1), chart.Ramp(slowest/hi); got != want {
		t.Errorf("fill of the %.1f tok/s cell %v, want the charts' %v", slowest, got, want)
	}
	if got, want := m.Fill(0, 32), chart.Ramp(1); got != want {
		t.Errorf("fill of the fastest cell %v, want the top of the charts' scale %v", got, want)
	}
	// A live run: the plan has the cell, no figures yet.
	live := run()
	live.Cells = live.Cells[:1]
	live.Plan = rundoc.Plan{Contexts: []int{0, 32768}, Concurrency: []int{1, 32}}
	m.SetPendingText("will run")
	m.SetRun(live)
	if l1, _, ok := m.Lines(0, 32); !ok || l1 != "will run" {
		t.Errorf("planned cell says %q (present %v), want the pending text", l1, ok)
	}
	m.SetRunning(0, 32, true)
	if l1, _, _ := m.Lines(0, 32); l1 != "measuring…" {
		t.Errorf("running cell says %q, want measuring…", l1)
	}
	m.SetRunning(0, 32, false)
	if l1, _, _ := m.Lines(0, 32); l1 != "will run" {
		t.Errorf("after the mark is cleared the cell says %q", l1)
	}
	m.SetRun(nil)
	if _, _, ok := m.Lines(0, 1); ok {
		t.Error("cleared matrix still shows cells")
	}
}

// A decode cell with a roofline figure shows it as a small third line
// (the registry's "65 % of BW"); a cell without one, or one that did not
// run, keeps two lines.
func TestRooflineLine(t *testing.T) {
	test.NewTempApp(t)
	m := matrix.New()
	r := run()
	r.Cells[0].RooflinePct = 65.4
	r.Cells[3].RooflinePct = 80 // over capacity: not measured, nothing to show
	m.SetRun(r)
	for _, tc := range []struct {
		ctx, n int
		want   string
	}{{0, 1, "65 % of BW"}, {0, 32, ""}, {32768, 32, ""}} {
		if got := m.Roofline(tc.ctx, tc.n); got != tc.want {
			t.Errorf("cell %d×%d roofline line %q, want %q", tc.ctx, tc.n, got, tc.want)
		}
	}
}

// An Unreliable cell (issue 35 item 1) says so on the cell, with the head
// of its reason on the second line, and is not coloured as a throughput
// nor given a roofline share: its figure is no headline, though it stays
// in the cell for the record.
func TestUnreliableCellSaysWhy(t *testing.T) {
	test.NewTempApp(t)
	r := run()
	lying := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 32, Status: rundoc.StatusUnreliable,
		TotalTokS: 8906, TTFTMs: 2368, RooflinePct: 650,
		Reason: rundoc.UnreliableReason("counter -90%", "the server counted 1,238 generated tokens, RigBench 12,380 (-90.0%)") + "; a note"}
	r.Cells[1] = lying
	m := matrix.New()
	m.SetRun(r)
	l1, l2, ok := m.Lines(0, 32)
	if !ok || l1 != "Unreliable" || l2 != "counter -90%" {
		t.Errorf("the Unreliable cell shows %q / %q (present %v), want Unreliable / counter -90%%", l1, l2, ok)
	}
	if got := m.Roofline(0, 32); got != "" {
		t.Errorf("the Unreliable cell shows a roofline share %q", got)
	}
	over := m.Fill(32768, 32) // a cell that did not run: the status fill
	if got := m.Fill(0, 32); got != over {
		t.Errorf("the Unreliable cell is filled %v, want the status fill %v, not a throughput colour", got, over)
	}
	// The fastest Valid cell takes the top of the scale: the Unreliable
	// 8906 tok/s does not squash the others.
	if got, want := m.Fill(0, 1), chart.Ramp(1); got != want {
		t.Errorf("fill of the fastest Valid cell %v, want the top of the scale %v", got, want)
	}
}
