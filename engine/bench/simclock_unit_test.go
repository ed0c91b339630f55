package bench

import (
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/sim"
)

// The simulator writes its clock and the client reads it under names each
// package spells for itself (engine/sim imports nothing of the client's):
// they must be the same names.
func TestSimulatorAndClientNameTheClockAlike(t *testing.T) {
	for _, p := range [][2]string{
		{sim.HeaderArrival, client.HeaderSimArrival},
		{sim.HeaderSpeed, client.HeaderSimSpeed},
		{sim.ChunkTimeField, client.ChunkTimeField},
		{sim.HeaderSentAt, client.HeaderSimSent},
	} {
		if p[0] != p[1] {
			t.Errorf("the simulator writes %q, the client reads %q", p[0], p[1])
		}
	}
}

// idleShare counts the card time between a request's last token and the
// stream's next send, inside the window only, over the streams' time.
func TestIdleShareCountsGapsBetweenRequests(t *testing.T) {
	s := time.Second
	reqs := []request{
		// Stream 0: ends at 2 s (its last chunk), the next is sent at 3 s,
		// which ends at 9 s and is followed by a send at 12 s, past the
		// window's end at 10 s.
		{stream: 0, sent: -5 * s, done: true, chunks: []chunkAt{{at: 2 * s, tokens: 1}}, ended: 2500 * time.Millisecond},
		{stream: 0, sent: 3 * s, done: true, chunks: []chunkAt{{at: 9 * s, tokens: 1}}},
		{stream: 0, sent: 12 * s},
		// Stream 1: one request in flight throughout.
		{stream: 1, sent: -5 * s, chunks: []chunkAt{{at: 9 * s, tokens: 1}}},
	}
	share, most := idleShare(reqs, 2, 10*s)
	// 1 s + 1 s idle of 2 streams × 10 s.
	if want := 0.1; share < want-1e-9 || share > want+1e-9 || most != s {
		t.Errorf("idle share %.3f, longest %v; want %.3f and 1s", share, most, want)
	}
}
