package bench

import (
	"time"

	"github.com/rigbench/rigbench/engine/client"
)

// cardClock converts the client's monotonic instants to the served card's
// time, once, where they are captured: the offset from the window's opening
// × the simulator's speed S (1 for a real server). A simulator S times fast
// serves in 1/S real seconds what the card serves in one, so every figure
// derived from card offsets reads like the card and carries no speed factor.
type cardClock struct {
	start time.Time
	speed float64
}

// at is the card-time offset of an instant from the window's opening,
// negative before it.
func (c cardClock) at(t time.Time) time.Duration {
	return time.Duration(float64(t.Sub(c.start)) * c.speed)
}

// real converts a card-time span to the real time it lasts.
func (c cardClock) real(d time.Duration) time.Duration { return scaleDown(d, c.speed) }

// chunkAt is one content chunk as captured: when it arrived (card offset)
// and the output tokens it carried (0 for text whose usage added nothing).
type chunkAt struct {
	at     time.Duration
	tokens int
}

// request is one request of a window as captured: card-time offsets from
// the window's opening and every content chunk it received. Nothing here is
// cut to the window yet: the window's end is applied when the figures are
// derived (tally.add), so a window may close at any instant.
type request struct {
	stream      int // which of the window's streams sent it
	sent, ended time.Duration
	// firstText is the first chunk with text (the TTFT end point),
	// hasFirstText false when none arrived.
	firstText    time.Duration
	hasFirstText bool
	chunks       []chunkAt
	// done is true when the server ended the request normally; the request
	// counts as finished when that also happened inside the window.
	done         bool
	source       string
	usageTokens  int // final usage total of a normally ended request
	promptTokens int
	err          error
	// retries counts transient resends; finishLength is a normal end with
	// finish_reason "length".
	retries      int
	finishLength bool
	// missingDone: the choice finished but [DONE] never came (the client
	// ended the request after a short grace).
	missingDone bool
	// usageBackwards counts chunks whose cumulative usage fell below an
	// earlier one (client.StreamResult.UsageBackwards).
	usageBackwards int
	// lag is the most a chunk was read after the server's clock placed it
	// (card time; 0 for servers that tell no clock).
	lag time.Duration
}

// capture fills rq from a finished stream's result (chunks were appended as
// they arrived).
func (rq *request) capture(clk cardClock, res client.StreamResult, err error, cancelled bool) {
	rq.sent, rq.ended = clk.at(res.Sent), clk.at(res.End)
	rq.source, rq.promptTokens = res.Source, res.PromptTokens
	if !res.FirstToken.IsZero() {
		rq.firstText, rq.hasFirstText = clk.at(res.FirstToken), true
	}
	rq.done = err == nil && res.Finished
	rq.retries, rq.finishLength = res.Retries, rq.done && res.FinishLength
	rq.missingDone, rq.usageBackwards = res.MissingDone, res.UsageBackwards
	rq.lag = time.Duration(float64(res.ClockLag) * clk.speed)
	if rq.done {
		rq.usageTokens = res.Tokens
	}
	if err != nil && !cancelled {
		rq.err = err
	}
}
