package bench

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestFailuresErrorAsksOnlyWhenUnanswered: a live server's HTTP 500, 429 or
// 503 got the question "is the server still running?" (issue 36 item 10);
// a server that answered is running, and the sentence says what its answer
// means.
func TestFailuresErrorAsksOnlyWhenUnanswered(t *testing.T) {
	for _, tc := range []struct {
		e    FailuresError
		want string
	}{
		{FailuresError{Count: 3, Unreachable: true}, "is the server still running?"},
		{FailuresError{Count: 3}, "is the server still running?"},
		{FailuresError{Count: 3, HTTPStatus: 500}, "running but answers HTTP 500"},
		{FailuresError{Count: 3, HTTPStatus: 429}, "limits how many requests"},
		{FailuresError{Count: 3, HTTPStatus: 503}, "says it is unavailable"},
	} {
		if got := tc.e.Error(); !strings.Contains(got, tc.want) || tc.e.HTTPStatus != 0 && strings.Contains(got, "still running?") {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestCounterAllowsTheClientsLag: a client behind the simulator's clock
// had not read the last lag seconds' tokens when the close cancelled its
// requests; the server counted them. That surplus is no contradiction; a
// larger one still is.
func TestCounterAllowsTheClientsLag(t *testing.T) {
	c := rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: 16, TotalTokS: 500}
	c.ServerOutputTokens, c.CheckedOutputTokens = 3300, 3000 // +10% + 300 tokens
	c.ClientLagS = 0.7                                       // 350 tokens at 500 tok/s
	if d, bad := counterContradicts(&c); bad {
		t.Errorf("a surplus the lag explains read as a contradiction (%+.1f%%)", d)
	}
	c.ServerOutputTokens = 4000
	if _, bad := counterContradicts(&c); !bad {
		t.Error("a surplus beyond the lag passed")
	}
}
