package bench

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestNoOutputNeedsCapacityEvidence: a window without a token is Over
// capacity only with the server's word for it (its KV gauge near full,
// preemptions, requests waiting with none running, or what the gauges said
// when the streams went silent); otherwise it is Failed, whatever the
// prediction, because a server that fits its requests and sends nothing
// is faulty (issue 35: it read "Over capacity" whatever the cause).
func TestNoOutputNeedsCapacityEvidence(t *testing.T) {
	f := 0.0
	for _, tc := range []struct {
		name      string
		cell      rundoc.Cell
		atSilence string
		want      rundoc.Status
		says      string
	}{
		{"nothing said", rundoc.Cell{Concurrency: 2, ServerStats: &rundoc.ServerStats{KVUsageMax: 0.1}}, "", rundoc.StatusFailed, "showed no sign of a full KV cache"},
		{"no metrics", rundoc.Cell{Concurrency: 2}, "", rundoc.StatusFailed, "no token in the window"},
		{"gauge full", rundoc.Cell{Concurrency: 2, ServerStats: &rundoc.ServerStats{KVUsageMax: 0.99}}, "", rundoc.StatusOverCapacity, "its KV cache was 99% full"},
		{"preempted", rundoc.Cell{Concurrency: 2, ServerStats: &rundoc.ServerStats{Preemptions: 3}}, "", rundoc.StatusOverCapacity, "it preempted 3 requests"},
		{"held waiting", rundoc.Cell{Concurrency: 2, ServerStats: &rundoc.ServerStats{},
			ServerSamples: []rundoc.ServerSample{{T: 1, Waiting: 2, KVUsage: &f}}}, "", rundoc.StatusOverCapacity, "it held 2 of 2 requests waiting with none running"},
		{"said at the silence", rundoc.Cell{Concurrency: 2}, "its KV cache was 97% full", rundoc.StatusOverCapacity, "its KV cache was 97% full"},
	} {
		st, why := noOutput(&tc.cell, tc.atSilence)
		if st != tc.want || !strings.Contains(why, tc.says) {
			t.Errorf("%s: %s %q, want %s saying %q", tc.name, st, why, tc.want, tc.says)
		}
	}
}
