package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// A request whose choice finished without the closing [DONE] (the client
// ended it after its grace, issue 23 item 7) is counted and named on the
// cell, not passed over in silence.
func TestMissingDoneIsNamed(t *testing.T) {
	for _, missing := range []bool{true, false} {
		tl := newTally(10*time.Second, 10*time.Second, 1)
		tl.add(&request{sent: 0, ended: time.Second, done: true, missingDone: missing, source: client.SourceContinuousUsage,
			usageTokens: 2, chunks: []chunkAt{{at: 100 * time.Millisecond, tokens: 1}, {at: 200 * time.Millisecond, tokens: 1}}})
		c := &rundoc.Cell{Concurrency: 1}
		derive(c, tl, 10)
		classify(c, tl, false, 10)
		if got := strings.Contains(c.Reason, "1 request(s) finished without the stream's closing [DONE]"); got != missing {
			t.Errorf("missing [DONE] %v: reason %q", missing, c.Reason)
		}
	}
}

// A usage that counts 1000 tokens per content chunk is not a stream
// (issue 23 item 10): the cell is not Valid but Unreliable, the usage
// contradicted by the chunks received (issue 35 item 1), with the reason.
func TestInflatedUsageIsUnreliable(t *testing.T) {
	for _, usage := range []int{2000, 20} {
		tl := newTally(10*time.Second, 10*time.Second, 1)
		tl.add(&request{sent: 0, ended: time.Second, done: true, source: client.SourceFinalUsage, usageTokens: usage,
			chunks: []chunkAt{{at: 100 * time.Millisecond, tokens: 1}, {at: 200 * time.Millisecond, tokens: 1}}})
		c := &rundoc.Cell{Concurrency: 1}
		derive(c, tl, 10)
		classify(c, tl, false, 10)
		c.TotalTokSCI95 = 0 // two chunks make a wide ±, a rule of its own
		judge(c, evidenceOf(tl))
		if failed := c.Status == rundoc.StatusUnreliable; failed != (usage == 2000) || failed && !strings.HasPrefix(c.Reason, "usage 1000/chunk: ") ||
			failed && !strings.Contains(c.Reason, "more than 64 per chunk") {
			t.Errorf("usage %d for 2 chunks: %s (%q)", usage, c.Status, c.Reason)
		}
	}
}
