package sim

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// The simulator tells its clock (docs/simulator.md: Figures in card time
// on a busy machine).
//
// The engine runs in simulated time t and releases each step's tokens at
// the wall-clock instant start + t/S. A simulator S times fast turns every
// real delay into S times as much card time: at 100× a reader that the host
// leaves unscheduled for 10 ms reads its tokens a whole second of the
// card's time late, and times them there. So the simulator says when each
// token was made. Each streamed chunk carries the simulated time of its
// last token (ChunkTimeField, whole microseconds), and the response's
// headers the simulated time a at which the request was sent
// (HeaderArrival: its arrival, or the client's own send time when it says
// it, arrive) and S (HeaderSpeed). A client that sent it at s on its own
// clock places a chunk stamped t at
//
//	s + (t − a) / S
//
// on its own clock: where it would have arrived had neither the client nor
// the simulator been late, the request's transit taken as nil (on one
// machine, microseconds). How much later it did arrive is the client's lag
// behind the simulator's clock, its evidence of a machine that cannot keep
// up (engine/client: StreamResult.ClockLag). The figures then depend on the
// host only where the client acts on its own clock: when it sends a
// request (a late re-send starts the request late in the card's time as
// well) and when it stops reading.
//
// A stamp times a chunk by its last token, so a chunk must not gather the
// tokens of steps far apart: a handler the host runs late takes many steps
// at once, and one chunk of them would put a second of the card's tokens
// at one instant. It writes them as several chunks instead (chunkSteps),
// each of the steps the engine itself releases together (within
// sleepSlack of real time, and at least minChunkSpan: chunkSpan), so a fast
// simulator still sends several tokens per chunk as a busy vLLM does, and a
// late handler not a backlog.
//
// Nothing here slows the simulated clock: it stays S × the wall clock, so
// every instant a client takes from its own clock (a window's opening and
// close, a sample's time) converts by the one factor S. The engine is
// unchanged: a loop that wakes late catches up, as before.

// Headers and the chunk field that carry the simulator's clock.
const (
	// HeaderArrival is the simulated time, in microseconds, at which a
	// streamed request was sent (arrival.sent).
	HeaderArrival = "X-Sim-Arrival-Us"
	// HeaderSpeed is the speed factor S of that clock.
	HeaderSpeed = "X-Sim-Speed"
	// ChunkTimeField is the field, first in each streamed chunk, that
	// holds the simulated time, in microseconds, of its last token.
	ChunkTimeField = "sim_time_us"
	// HeaderSentAt is the request header in which a client on the same
	// machine says when it sent the request, in Unix nanoseconds (arrive).
	HeaderSentAt = "X-Sim-Sent-Unix-Ns"
)

// stampUS is a simulated time in whole microseconds, as the stamps carry
// it.
func stampUS(t float64) int64 { return int64(math.Round(t * 1e6)) }

// setClockHeaders writes the clock headers of a streamed response; an
// unthrottled server has no clock to tell. s.mu is held.
func (s *Server) setClockHeaders(h interface{ Set(string, string) }, arrival float64) {
	if math.IsInf(s.speed, 1) {
		return
	}
	h.Set(HeaderArrival, strconv.FormatInt(stampUS(arrival), 10))
	h.Set(HeaderSpeed, strconv.FormatFloat(s.speed, 'g', -1, 64))
}

// stamp puts "sim_time_us":N first in the JSON object b; b is returned
// unchanged when it is not an object or t is not positive.
func stamp(b []byte, t float64) []byte {
	us := stampUS(t)
	if us <= 0 || len(b) < 2 || b[0] != '{' {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, `{"`+ChunkTimeField+`":`...)
	out = strconv.AppendInt(out, us, 10)
	if b[1] != '}' {
		out = append(out, ',')
	}
	return append(out, b[1:]...)
}

// stepOut is what one step released to one stream: its tokens and the
// simulated time of the step's end.
type stepOut struct {
	n  int
	at float64
	// first is set on a request's first token, which is a chunk of its
	// own: its stamp is the request's time to first token.
	first bool
}

// chunkSpan is the most simulated time one chunk's tokens may span: what
// the engine loop releases at one wake-up (sleepSlack of real time, ×S),
// and at least minChunkSpan; unbounded for an unthrottled server, which
// has no time to keep.
func (s *Server) chunkSpan() float64 {
	if math.IsInf(s.speed, 1) {
		return math.Inf(1)
	}
	return max(sleepSlack.Seconds()*s.speed, minChunkSpan)
}

// minChunkSpan (simulated seconds) lets a late handler still gather a few
// steps per chunk, as a busy vLLM does, which is also what lets a client
// the host runs late catch up: fewer, larger chunks. Placing a chunk's
// tokens at its last one moves them by less than this, against the
// seconds of card time over which a window's uncertainty is taken.
const minChunkSpan = 0.05

// chunkSteps groups released steps, in order, into chunks: a chunk takes
// the steps that end within span of its first one, and is stamped with the
// last one's time. A request's first token is a chunk of its own.
func chunkSteps(steps []stepOut, span float64) []stepOut {
	var out []stepOut
	var from float64
	open := false // the last chunk may take more steps
	for _, st := range steps {
		if open && !st.first && st.at-from <= span {
			out[len(out)-1].n += st.n
			out[len(out)-1].at = st.at
			continue
		}
		from, open = st.at, !st.first
		out = append(out, st)
	}
	return out
}

// truncateChunks keeps the first limit tokens of chunks (the stall fault);
// cut is true when some were left out.
func truncateChunks(chunks []stepOut, limit int) (kept []stepOut, cut bool) {
	for _, ch := range chunks {
		if limit <= 0 {
			return kept, true
		}
		if ch.n > limit {
			ch.n, cut = limit, true
		}
		limit -= ch.n
		kept = append(kept, ch)
	}
	return kept, cut
}

// arrival is when a request arrived: on the wall clock (the ground truth's
// record), in simulated time as the engine takes it in (sim), and in
// simulated time as its client sent it (sent, the clock headers' arrival:
// a client's TTFT runs from its send, through any wait for the step in
// progress to end).
type arrival struct {
	wall      time.Time
	sim, sent float64
}

// arrive is a request's arrival, taken as its handler starts: the
// simulated time then, and never before the engine's present then (a
// request that arrives during a step is seen from the step's end, as it
// always was). Reading the engine's present here, not once the body is
// decoded and tokenised, keeps that real work (milliseconds, ×S at high
// speeds on a busy machine) out of the request's simulated arrival: the
// time model charges it already (Profile's API cost).
//
// A client on the same machine may say when it sent the request
// (HeaderSentAt, Unix nanoseconds: RigBench's runner does). The request
// is then placed at that instant d before now, and the engine's present
// then is taken as its present now less d×S: a handler the host started
// late no longer delays the request, and requests sent together reach the
// card together. A time in the future or more than maxSentAge ago (another
// machine's clock, a retry) is ignored.
func (s *Server) arrive(r *http.Request) arrival {
	now := time.Now()
	at := now
	if ns, err := strconv.ParseInt(r.Header.Get(HeaderSentAt), 10, 64); err == nil {
		if sent := time.Unix(0, ns); !sent.After(now) && now.Sub(sent) <= maxSentAge {
			at = sent
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	back := now.Sub(at).Seconds() * s.speed
	if math.IsInf(s.speed, 1) {
		back = 0
	}
	return arrival{wall: now, sim: max(s.simAt(at), s.core.now-back), sent: s.simAt(at)}
}

// maxSentAge bounds how long before its handler started a request may say
// it was sent (arrive).
const maxSentAge = time.Second
