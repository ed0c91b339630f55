package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"
)

// CompletionRequest is one /v1/completions request. Decode cells send
// MaxTokens = M with IgnoreEOS so output length never depends on the model.
type CompletionRequest struct {
	Model     string
	Prompt    string
	MaxTokens int
	// MinTokens is sent when > 0 (vLLM's min_tokens).
	MinTokens int
	IgnoreEOS bool
	// NoContinuousUsage leaves out continuous_usage_stats for servers that
	// reject unknown stream options.
	NoContinuousUsage bool
}

// Body returns the JSON request body. A caller that re-sends the same
// request (a decode window's closed loop) encodes it once and uses
// StreamBody: a 32K-token prompt is about 130 KB of JSON.
func (r CompletionRequest) Body() ([]byte, error) {
	opts := map[string]any{"include_usage": true}
	if !r.NoContinuousUsage {
		opts["continuous_usage_stats"] = true
	}
	m := map[string]any{
		"model":          r.Model,
		"prompt":         r.Prompt,
		"max_tokens":     r.MaxTokens,
		"stream":         true,
		"stream_options": opts,
		"temperature":    0,
	}
	if r.IgnoreEOS {
		m["ignore_eos"] = true
	}
	if r.MinTokens > 0 {
		m["min_tokens"] = r.MinTokens
	}
	return json.Marshal(m)
}

// Token count sources, in order of preference (METHOD.md: Figures).
const (
	SourceContinuousUsage = "continuous_usage"
	SourceFinalUsage      = "final_usage"
	SourceChunks          = "chunks"
)

// StreamResult describes one streamed request. Times carry Go's monotonic
// clock reading, so differences between them are immune to wall-clock jumps.
type StreamResult struct {
	// Sent is just before the request was written.
	Sent time.Time
	// FirstToken is the arrival of the first chunk with non-empty text
	// (zero when none arrived); LastToken the arrival of the last one.
	FirstToken, LastToken time.Time
	// FirstChunk is the arrival of the first chunk that carried text or
	// tokens: the fallback for TTFT when the first token decodes to "".
	FirstChunk time.Time
	// End is when the stream ended (finished, broke or was cancelled).
	End time.Time
	// ContentChunks counts chunks that carried text or tokens.
	ContentChunks int
	// Tokens is the output token count from the best source available;
	// Source says which (Source… constants). ChunkTokens is the count by
	// chunks alone, for the cross-check of METHOD.md.
	Tokens, ChunkTokens int
	Source              string
	// PromptTokens is usage.prompt_tokens, 0 when not reported.
	PromptTokens int
	// Finished is true when the server ended the request normally
	// (finish_reason or [DONE]).
	Finished bool
	// FinishLength is true when finish_reason was "length": the request
	// stopped at max_tokens or, short of it, at the server's context limit.
	FinishLength bool
	// MissingDone is true when the choice finished (finish_reason) but
	// the stream ended without "data: [DONE]": the connection closed, or
	// stayed open past FinishGrace. The request counts as finished; the
	// caller may count and name such a server.
	MissingDone bool
	// Retries counts the times the request was sent again after a
	// transient connection error (MaxTransientRetries at most).
	Retries int
	// UsageBackwards counts the chunks whose cumulative
	// usage.completion_tokens was below an earlier chunk's: a count that
	// runs backwards is no count (METHOD.md: Status, Unreliable). The
	// tokens it hands onToken never go below 0, so without this the
	// contradiction would be silent.
	UsageBackwards int
	// ServerClock is true when the server told its clock (RigBench's
	// simulator: serverClock): the chunks' times above (FirstToken,
	// LastToken, FirstChunk) are then where the server's clock puts them,
	// and ClockLag is the most that a content chunk arrived after that
	// time, the client's own lag behind the server. Sent and End stay the
	// client's: when it sent, and when it was done with the stream.
	ServerClock bool
	ClockLag    time.Duration
}

// Where RigBench's simulator tells its clock (engine/sim: clock.go): the
// headers of a streamed response and a field of each chunk.
const (
	// HeaderSimArrival is the server's time, in microseconds, at which the
	// request arrived.
	HeaderSimArrival = "X-Sim-Arrival-Us"
	// HeaderSimSpeed is the speed factor of that clock: server
	// microseconds per real microsecond.
	HeaderSimSpeed = "X-Sim-Speed"
	// ChunkTimeField is the chunk field with the server's time, in
	// microseconds, of the chunk's last token.
	ChunkTimeField = "sim_time_us"
	// HeaderSimSent is the request header with the client's wall clock,
	// in Unix nanoseconds, just before it sent the request: the
	// simulator, on the same machine, takes the request as arrived then,
	// not when its own busy handler got to it (TellSendTimes).
	HeaderSimSent = "X-Sim-Sent-Unix-Ns"
)

// TellSendTimes makes every streamed request carry HeaderSimSent, when the
// server is on this machine (a loopback address reached without a rig's
// dialer: another machine's clock would be off by its offset × S). The runner calls it for RigBench's
// simulator only: at S× speed a handler that the host starts a few
// milliseconds late would otherwise place the request S times as late in
// the card's time, and requests sent together would reach the card apart
// (the simulator's TTFT at 16K×16 read half of its 1× value under load).
func (c *Client) TellSendTimes() {
	host := c.base.Hostname()
	ip := net.ParseIP(host)
	c.sendTimes = c.dial == nil && (host == "localhost" || ip != nil && ip.IsLoopback())
}

// serverClock maps a server's stamps onto the client's clock: a chunk
// stamped t by a server that stamped the request's arrival a and runs S
// times fast is placed at sent + (t − a)/S. That is when it would have
// arrived had the client read it at once (the request's transit taken as
// nil), so a client the host leaves unscheduled still times the server's
// tokens right; how much later it did read them is its lag.
type serverClock struct {
	sent    time.Time
	arrival int // microseconds
	speed   float64
}

// newServerClock reads a response's clock headers; nil when it has none.
func newServerClock(h http.Header, sent time.Time) *serverClock {
	a, err1 := strconv.Atoi(h.Get(HeaderSimArrival))
	sp, err2 := strconv.ParseFloat(h.Get(HeaderSimSpeed), 64)
	if err1 != nil || err2 != nil || a < 0 || !(sp >= 1) || math.IsInf(sp, 1) {
		return nil
	}
	return &serverClock{sent: sent, arrival: a, speed: sp}
}

// at is the client-clock instant of server time us.
func (c *serverClock) at(us int) time.Time {
	return c.sent.Add(time.Duration(float64(us-c.arrival) * 1e3 / c.speed))
}

// TokenFunc receives each content chunk: its arrival time and the output
// tokens it carried (from continuous usage when the server reports it, else
// 1 per chunk). tokens is 0 for a chunk with text whose usage added
// nothing, which a server whose usage undercounts sends; the caller counts
// such chunks to catch it (METHOD.md: Output tokens).
type TokenFunc func(at time.Time, tokens int)

// Stream sends req with stream:true and reads the SSE stream to its end,
// calling onToken for each content chunk. When ctx is cancelled mid-stream
// the connection is closed and the partial result is returned with ctx's
// error. A stream that breaks returns the partial result with a
// *StreamError; a refused prompt a *PromptTooLongError.
func (c *Client) Stream(ctx context.Context, req CompletionRequest, onToken TokenFunc) (StreamResult, error) {
	body, err := req.Body()
	if err != nil {
		return StreamResult{}, err
	}
	return c.StreamBody(ctx, body, onToken)
}

// StreamBody is Stream with a body from CompletionRequest.Body.
func (c *Client) StreamBody(ctx context.Context, body []byte, onToken TokenFunc) (StreamResult, error) {
	hreq, err := c.newRequest(ctx, http.MethodPost, "/v1/completions", bytes.NewReader(body))
	if err != nil {
		return StreamResult{}, err
	}
	hreq.Header.Set("Accept", "text/event-stream")
	res := StreamResult{Sent: time.Now()}
	if c.sendTimes {
		hreq.Header.Set(HeaderSimSent, strconv.FormatInt(res.Sent.UnixNano(), 10))
	}
	resp, retries, err := c.doRetrying(hreq)
	res.Retries = retries
	if err != nil {
		res.End = time.Now()
		return res, err
	}
	defer resp.Body.Close()
	// Once the choice has finished, the stream has FinishGrace for its
	// usage chunk and [DONE]; then the body is closed, which ends the read
	// of a server that keeps the connection open without [DONE].
	var stop func() bool
	onFinish := func() {
		if stop == nil {
			stop = c.afterFunc(FinishGrace, func() { resp.Body.Close() })
		}
	}
	clk := newServerClock(resp.Header, res.Sent)
	res.ServerClock = clk != nil
	err = c.scrubErr(readStreamClock(resp.Body, &res, clk, onToken, onFinish))
	if stop != nil {
		stop()
	}
	res.End = time.Now()
	if err != nil && ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, err
}

// FinishGrace is how long a stream whose choice has finished
// (finish_reason) may take to send its usage chunk and [DONE] before the
// request ends without them. vLLM sends both within milliseconds.
const FinishGrace = 2 * time.Second

// readStream consumes an SSE completion stream into res. onFinish (may be
// nil) is called once, when the choice finishes; after that, a stream that
// ends or breaks without [DONE] is a finished request with MissingDone set.
func readStream(r io.Reader, res *StreamResult, onToken TokenFunc, onFinish func()) error {
	return readStreamClock(r, res, nil, onToken, onFinish)
}

// readStreamClock is readStream for a server that tells its clock (clk
// non-nil): chunks it stamped are timed by the stamp (serverClock).
func readStreamClock(r io.Reader, res *StreamResult, clk *serverClock, onToken TokenFunc, onFinish func()) error {
	sse := newSSEReader(r)
	defer sse.release()
	var (
		ch   chunk
		st   streamState
		done bool
	)
	for {
		payload, err := sse.next()
		if err != nil {
			if errors.Is(err, io.EOF) || res.Finished {
				break
			}
			return st.end(res, &StreamError{Reason: err.Error(), Err: err})
		}
		now := time.Now()
		if bytes.Equal(bytes.TrimSpace(payload), []byte("[DONE]")) {
			done = true
			break
		}
		if err := parseChunk(payload, &ch); err != nil {
			return st.end(res, &StreamError{Reason: "the server sent a malformed chunk"})
		}
		if ch.isError {
			return st.end(res, chunkError(&ch))
		}
		wasFinished := res.Finished
		if clk != nil && ch.hasSimTime {
			at := clk.at(ch.simTimeUS)
			res.ClockLag = max(res.ClockLag, now.Sub(at))
			now = at
		}
		st.add(&ch, now, res, onToken)
		if res.Finished && !wasFinished && onFinish != nil {
			onFinish()
		}
	}
	if done {
		res.Finished = true
	} else if res.Finished {
		res.MissingDone = true
	}
	var err error
	if !res.Finished {
		err = &StreamError{Reason: "the connection closed before the server finished the response"}
	}
	return st.end(res, err)
}

// streamState is what readStream counts across a stream's chunks.
type streamState struct {
	usageTotal  int  // last completion_tokens seen
	counted     int  // tokens passed to onToken so far
	usageChunks int  // content chunks that carried usage
	sawUsage    bool // some chunk carried usage
	sawFinal    bool // a usage-only final chunk (choices: [])
}

// add takes one parsed chunk received at now into res.
func (st *streamState) add(ch *chunk, now time.Time, res *StreamResult, onToken TokenFunc) {
	if ch.hasUsage && ch.promptTokens > 0 {
		res.PromptTokens = ch.promptTokens
	}
	if ch.hasUsage && st.sawUsage && ch.completionTokens < st.usageTotal {
		res.UsageBackwards++
	}
	if ch.emptyChoices {
		st.sawFinal = true
		if ch.hasUsage {
			st.usageTotal = ch.completionTokens
			st.sawUsage = true
		}
		return
	}
	// Without usage a chunk with text counts as one token. With usage (on every
	// chunk, or llama-server's on the last one only) the chunk carries
	// whatever the cumulative count adds to what was counted so far.
	tokens := 0
	if ch.textLen > 0 {
		tokens = 1
	}
	if ch.hasUsage {
		tokens = max(0, ch.completionTokens-st.counted)
		st.usageTotal = ch.completionTokens
		st.sawUsage = true
	}
	st.counted += tokens
	if ch.hasUsage && (ch.textLen > 0 || tokens > 0) {
		// Only a content chunk with usage is continuous usage: llama-server's
		// closing chunk carries usage and no text, and a 1-token answer's
		// one content chunk and that closing chunk read as "every content
		// chunk carried usage" (issue 30 item 8).
		st.usageChunks++
	}
	if ch.textLen > 0 || tokens > 0 {
		if ch.textLen > 0 {
			if res.FirstToken.IsZero() {
				res.FirstToken = now
			}
			res.LastToken = now
		}
		if res.FirstChunk.IsZero() {
			res.FirstChunk = now
		}
		res.ContentChunks++
		if onToken != nil {
			onToken(now, tokens)
		}
	}
	if ch.finished {
		res.Finished = true
		res.FinishLength = res.FinishLength || ch.finishLength
	}
}

// chunkError is the error an error chunk reports: over capacity, a prompt
// too long, or the server's message.
func chunkError(ch *chunk) error {
	msg := string(ch.errMsg)
	switch {
	case overCapRe.MatchString(msg):
		return &OverCapacityError{Message: msg}
	case tooLongRe.MatchString(msg):
		return tooLong(msg)
	}
	return &StreamError{Reason: "the server reported an error mid-stream: " + msg}
}

// end settles the stream's token count and its source, and returns err. Continuous usage wins
// when every content chunk carried it; a final usage chunk is next; counted
// chunks are the fallback (METHOD.md: Output tokens).
func (st *streamState) end(res *StreamResult, err error) error {
	usageTotal, usageChunks, sawFinal := st.usageTotal, st.usageChunks, st.sawFinal
	res.ChunkTokens = res.ContentChunks
	switch {
	case usageChunks > 0 && usageChunks == res.ContentChunks:
		res.Tokens, res.Source = usageTotal, SourceContinuousUsage
	case sawFinal || (st.sawUsage && res.Finished):
		res.Tokens, res.Source = usageTotal, SourceFinalUsage
	default:
		res.Tokens, res.Source = res.ContentChunks, SourceChunks
	}
	return err
}
