package sim

import "time"

// RequestRecord is the ground truth of one request the simulator served:
// what it counted and when it sent it, in real (wall-clock) time, so a test
// can compare it with what an HTTP client measured in the same process.
type RequestRecord struct {
	ID string `json:"id"`
	// PromptTokens as usage.prompt_tokens reports them; CachedTokens of them
	// came from the prefix cache (set when the first token is released,
	// as the engine settled it when it scheduled the request).
	PromptTokens int `json:"prompt_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// ComputedTokens is the prompt tokens the engine computed for the
	// request: what a prefix-cache test adds up. It is 0 for a request
	// cancelled before it was scheduled (whose CachedTokens is 0 too,
	// though it computed nothing), and counts a preempted request's
	// recomputation.
	ComputedTokens int `json:"computed_tokens"`
	// Arrived is when the request was read; FirstToken when its first
	// content chunk was written; Finished when its response ended.
	Arrived    time.Time `json:"arrived"`
	FirstToken time.Time `json:"first_token,omitzero"`
	Finished   time.Time `json:"finished,omitzero"`
	// SimArrivedS and SimFirstTokenS are the request's arrival (when it
	// was sent: its handler's start, or the client's send where the client
	// says it, arrive) and its first token in simulated seconds: the
	// card's time, which the clock headers and the chunks' stamps carry
	// (clock.go), free of the host's delays that the wall times above
	// include. A request that arrives during a step waits for the step's
	// end, so its TTFT counts from here.
	SimArrivedS    float64 `json:"sim_arrived_s"`
	SimFirstTokenS float64 `json:"sim_first_token_s,omitempty"`
	// Tokens is every content chunk written: when, and how many tokens.
	Tokens []Emit `json:"tokens"`
	// Cancelled is true when the client went away before the end.
	Cancelled bool `json:"cancelled,omitempty"`
	// Error is the HTTP error or fault that ended the request, if any.
	Error string `json:"error,omitempty"`
}

// Emit is one chunk sent to a client.
type Emit struct {
	At time.Time `json:"at"`
	N  int       `json:"n"`
	// SimS is the simulated time of the chunk's last token, the stamp it
	// carried (clock.go); 0 for a chunk written without one.
	SimS float64 `json:"sim_s,omitempty"`
}

// OutputTokens is the number of tokens sent to the client.
func (r RequestRecord) OutputTokens() int {
	n := 0
	for _, e := range r.Tokens {
		n += e.N
	}
	return n
}

// TokensBetweenSim counts the tokens of stamped chunks whose stamps lie in
// [from, to] simulated seconds: what the card made in that span, which a
// busy host's late handlers do not move (Emit.At's wall times move by up
// to the host's delay × the speed at the span's ends).
func (r RequestRecord) TokensBetweenSim(from, to float64) int {
	n := 0
	for _, e := range r.Tokens {
		if e.SimS > 0 && e.SimS >= from && e.SimS <= to {
			n += e.N
		}
	}
	return n
}

func (r *RequestRecord) clone() RequestRecord {
	c := *r
	c.Tokens = append([]Emit(nil), r.Tokens...)
	return c
}
