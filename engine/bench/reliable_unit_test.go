package bench

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCIRuleMakesACellUnreliable (issue 35 item 1): a headline rate whose
// 95% half-width is more than rundoc.UnreliableCIPct of the figure is no
// headline (the demo at 100× read 91.2 ± 32381.9 tok/s, Valid); one just
// inside the share, or without a half-width, stays as it was. A prefill
// cell's prompt tok/s is held to rundoc.UnreliablePrefillCIPct.
func TestCIRuleMakesACellUnreliable(t *testing.T) {
	limit := rundoc.UnreliableCIPct / 100.0
	for _, tc := range []struct {
		phase      rundoc.Phase
		rate, half float64
		status     rundoc.Status
		head       string
	}{
		{rundoc.PhaseDecode, 91.2, 32381.9, rundoc.StatusUnreliable, "± 35506%"},
		{rundoc.PhaseDecode, 200, 200 * limit * 1.01, rundoc.StatusUnreliable, "± 10%"},
		{rundoc.PhaseDecode, 200, 200 * limit * 0.99, rundoc.StatusValid, ""},
		{rundoc.PhaseDecode, 200, 0, rundoc.StatusValid, ""},
		{rundoc.PhasePrefill, 1000, 1010, rundoc.StatusUnreliable, "± 101%"},
		{rundoc.PhasePrefill, 3879.1, 1937.4, rundoc.StatusValid, ""},
	} {
		c := &rundoc.Cell{Phase: tc.phase, Concurrency: 1, Status: rundoc.StatusValid}
		if tc.phase == rundoc.PhasePrefill {
			c.PromptTokS, c.PromptTokSCI95 = tc.rate, tc.half
		} else {
			c.TotalTokS, c.TotalTokSCI95 = tc.rate, tc.half
		}
		judge(c, nil)
		if c.Status != tc.status || rundoc.UnreliableHead(c) != tc.head {
			t.Errorf("%s %.1f ± %.2f: %s %q, want %s with head %q", tc.phase, tc.rate, tc.half, c.Status, c.Reason, tc.status, tc.head)
		}
	}
}

// TestCIRuleWhereStreamsRestart: in a window whose streams finished their
// M tokens and sent again, or that opened without steady state, the ±
// says nothing of the figure's error (rundoc.UnreliableCIPct), so it
// decides nothing; the same figure and ± in a steady window without
// restarts is Unreliable.
func TestCIRuleWhereStreamsRestart(t *testing.T) {
	for _, tc := range []struct {
		restarted, timedOut, unreliable bool
	}{{true, false, false}, {false, true, false}, {false, false, true}} {
		c := &rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 94.6, TotalTokSCI95: 106.7}
		c.WarmupTimedOut = tc.timedOut
		judge(c, &evidence{usage: 100, chunks: 100, restarted: tc.restarted})
		if got := c.Status == rundoc.StatusUnreliable; got != tc.unreliable {
			t.Errorf("restarted %v, warm-up timed out %v: %s %q, want unreliable %v", tc.restarted, tc.timedOut, c.Status, c.Reason, tc.unreliable)
		}
	}
}

// TestClientCPURuleMakesACellUnreliable (issue 35 item 1): a window in
// which RigBench used rundoc.ClientBehindPct of the machine's cores or
// more may have been paced by the client; such a cell is Unreliable with
// the share on the cell, a queued one too (its notes kept after the
// reason), while one below, or not measured (0: the demo), is untouched.
func TestClientCPURuleMakesACellUnreliable(t *testing.T) {
	for _, tc := range []struct {
		pct    float64
		was    rundoc.Status
		status rundoc.Status
	}{
		{rundoc.ClientBehindPct, rundoc.StatusValid, rundoc.StatusUnreliable},
		{97.4, rundoc.StatusQueued, rundoc.StatusUnreliable},
		{rundoc.ClientBehindPct - 0.1, rundoc.StatusValid, rundoc.StatusValid},
		{0, rundoc.StatusValid, rundoc.StatusValid},
		{99, rundoc.StatusFailed, rundoc.StatusFailed}, // no figure to contradict
	} {
		c := &rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: 4, Status: tc.was, TotalTokS: 100, Reason: "a note"}
		c.ClientCPUPct = tc.pct
		judge(c, &evidence{usage: 1000, chunks: 1000})
		if c.Status != tc.status {
			t.Errorf("client CPU %.1f%% on a %s cell: %s (%q), want %s", tc.pct, tc.was, c.Status, c.Reason, tc.status)
			continue
		}
		if c.Status == rundoc.StatusUnreliable && (!strings.HasPrefix(c.Reason, "client CPU ") || !strings.HasSuffix(c.Reason, "; a note")) {
			t.Errorf("client CPU %.1f%%: reason %q, want the share first and the note kept", tc.pct, c.Reason)
		}
	}
}

// TestCounterRuleTolerance: the server's counter may differ from
// RigBench's count by rundoc.UnreliableCounterPct, or by
// rundoc.UnreliableCounterSlack tokens per stream, without contradicting
// it; beyond both the cell is Unreliable, and the cross-check's note is
// not written twice.
func TestCounterRuleTolerance(t *testing.T) {
	for _, tc := range []struct {
		server, ours, n int
		unreliable      bool
	}{
		{7663, 4265, 4, true}, // the starved client of issue 35: +79.7%
		{1000, 10000, 2, true},
		{1090, 1000, 4, false},
		{1110, 1000, 4, true},
		{12, 8, 2, false}, // +50%, but 4 tokens of 2 streams: the close's cut
		{30, 0, 2, true},
	} {
		c := &rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: tc.n, Status: rundoc.StatusValid, TotalTokS: 50}
		c.ServerOutputTokens, c.CheckedOutputTokens = tc.server, tc.ours
		judge(c, nil)
		if got := c.Status == rundoc.StatusUnreliable; got != tc.unreliable || got && !strings.HasPrefix(c.Reason, "counter ") {
			t.Errorf("server %d, RigBench %d, N %d: %s %q, want unreliable %v", tc.server, tc.ours, tc.n, c.Status, c.Reason, tc.unreliable)
		}
	}
}
