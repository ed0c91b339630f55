package sim

import "time"

// RequestRecord is the ground truth of one request the simulator served:
// what it counted and when it sent it, in real (wall-clock) time, so a test
// can compare it with what an HTTP client measured in the same process.
type RequestRecord struct {
	ID string `json:"id"`
	// PromptTokens as usage.prompt_tokens reports them; CachedTokens of them
	// came from the prefix cache.
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
}

// OutputTokens is the number of tokens sent to the client.
func (r RequestRecord) OutputTokens() int {
	n := 0
	for _, e := range r.Tokens {
		n += e.N
	}
	return n
}

// TokensBetween counts the tokens sent in [from, to].
func (r RequestRecord) TokensBetween(from, to time.Time) int {
	n := 0
	for _, e := range r.Tokens {
		if !e.At.Before(from) && !e.At.After(to) {
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
