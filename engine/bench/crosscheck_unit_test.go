package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCrossCheckCountsARequestThatFinishedAfterTheClose: on llama-server,
// which counts a request when it finishes, a request the window's close
// cut at 250 of 256 tokens may still finish on the server; a surplus of
// exactly one max_output with one request cut is that request, not a
// disagreement. A surplus that is no whole number of requests, or more
// requests than were cut, is still reported.
func TestCrossCheckCountsARequestThatFinishedAfterTheClose(t *testing.T) {
	done := func(n int) request { return request{done: true, usageTokens: n, chunks: []chunkAt{{tokens: n}}} }
	cutAt := func(n int) request { return request{chunks: []chunkAt{{tokens: n}}} }
	reqs := []request{done(256), done(256), done(256), done(256), cutAt(250)}
	for _, tc := range []struct {
		name    string
		server  float64
		checked int
		noted   bool
	}{
		{"the cut request finished on the server", 1280, 1280, false},
		{"the cut request did not finish", 1024, 1024, false},
		{"a surplus of no whole request", 1100, 1024, true},
		{"more requests than were cut", 1536, 1024, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &rundoc.Cell{}
			w := &window{cell: c, maxOutput: 256, run: &rundoc.Run{Server: rundoc.Server{ServerFacts: rundoc.ServerFacts{Personality: string(client.PersonalityLlama)}}}}
			w.crossCheck(&counters{}, &counters{output: tc.server}, reqs)
			if c.CheckedOutputTokens != tc.checked || c.ServerOutputTokens != int(tc.server) {
				t.Errorf("checked %d, server %d; want %d, %v", c.CheckedOutputTokens, c.ServerOutputTokens, tc.checked, tc.server)
			}
			if noted := strings.Contains(c.Reason, "server counted"); noted != tc.noted {
				t.Errorf("note %q, want one: %v", c.Reason, tc.noted)
			}
		})
	}
}

// TestAvgActivePairsTheWaitingGaugeWithTheClient: 8 streams on 4 slots,
// where one server sample in four lands while a stream is between two
// requests (the client holds 7 open, the server 3 waiting): the slots in
// use are 4 at every sample, and avg_active reads 4, not the 4.7 that
// the plain mean of the waiting gauge (3.25) gives against the client's
// time-average of 7.95.
func TestAvgActivePairsTheWaitingGaugeWithTheClient(t *testing.T) {
	s := rundoc.Server{ServerFacts: rundoc.ServerFacts{Personality: string(client.PersonalityLlama), Slots: 4}}
	samples := []rundoc.ServerSample{{T: -0.1, Waiting: 0}, {T: 1, Waiting: 4}, {T: 2, Waiting: 3}, {T: 3, Waiting: 4}, {T: 4, Waiting: 2}}
	paired := []float64{math.NaN(), 8, 7, 8, 6}
	c := &rundoc.Cell{Concurrency: 8, AvgActive: 7.95}
	deriveServer(c, s, samples, paired, nil, 4)
	if c.AvgActive != 4 {
		t.Errorf("paired: avg_active %.2f, want 4", c.AvgActive)
	}
	c = &rundoc.Cell{Concurrency: 8, AvgActive: 7}
	deriveServer(c, s, samples, nil, nil, 4)
	if c.AvgActive != 3.75 {
		t.Errorf("unpaired: avg_active %.2f, want 7 − mean waiting 3.25 = 3.75", c.AvgActive)
	}
	// An estimate above the server's slots is the samples' noise: the
	// server runs at most 4 at once (7.95 − 3.25 = 4.7 reads 4).
	c = &rundoc.Cell{Concurrency: 8, AvgActive: 7.95}
	deriveServer(c, s, samples, nil, nil, 4)
	if c.AvgActive != 4 {
		t.Errorf("unpaired above the slots: avg_active %.2f, want the 4 slots", c.AvgActive)
	}
}
