package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestLagOfHalfAWindowIsSaid: a client that read a simulator's chunks half
// a window's length late or more says it could not keep up (maxLagShare):
// CI's 16K×16 at 100× under -race read 277.9 tok/s against 297.6 with a
// lag of 14.8 s in a 15 s window, Valid and silent, when the rule waited
// for a whole window. A lag below half says nothing, and a server that
// tells no clock (not simulated) is never judged by it.
func TestLagOfHalfAWindowIsSaid(t *testing.T) {
	const end = 15 * time.Second
	for _, tc := range []struct {
		lag       time.Duration
		simulated bool
		said      bool
	}{
		{14800 * time.Millisecond, true, true},
		{7500 * time.Millisecond, true, true},
		{7400 * time.Millisecond, true, false},
		{time.Second, true, false},
		{30 * time.Second, false, false},
	} {
		w := &window{run: &rundoc.Run{Simulated: tc.simulated}, cell: &rundoc.Cell{Status: rundoc.StatusValid}, prompts: []string{"a", "b"}}
		// Two streams sent at once, each holding one request through the
		// window: no send spread and no idle time, the lag alone.
		reqs := []request{
			{stream: 0, sent: 0, hasFirstText: true, firstText: time.Second, lag: tc.lag},
			{stream: 1, sent: 0, hasFirstText: true, firstText: time.Second, lag: time.Millisecond},
		}
		w.noteLag(reqs, end)
		said := strings.Contains(w.cell.Reason, "could not keep up")
		if said != tc.said {
			t.Errorf("lag %s in a %s window (simulated %v): reason %q, want said=%v", tc.lag, end, tc.simulated, w.cell.Reason, tc.said)
		}
		if tc.simulated && w.cell.ClientLagS != tc.lag.Seconds() {
			t.Errorf("lag %s: client_lag_s %v", tc.lag, w.cell.ClientLagS)
		}
	}
}
