package rundoc

import "math"

// ServerFacts are what RigBench learned about the kind of server it
// measured (issue 17): which personality answered, and which figures that
// server could not give, so views say "not reported" instead of showing 0.
// They are part of Server (embedded: the JSON fields sit at its top level).
type ServerFacts struct {
	// Personality is "vllm", "llama-server", "sglang" or "openai" (any other
	// OpenAI-compatible server); empty in runs from before it was recorded.
	Personality string `json:"personality,omitempty"`
	// Slots is llama-server's total_slots (the requests it runs at once),
	// SGLang's max_running_requests when it was set, or vLLM's
	// --max-num-seqs when RigBench launched it. KVUnified whether
	// llama-server's slots share one KV pool (-kvu): set only in runs
	// before issue 28, from a /props field only the simulator had.
	Slots     int  `json:"slots,omitempty"`
	KVUnified bool `json:"kv_unified,omitempty"`
	// NotReported names the figures this server does not expose (NotReported…
	// constants); they are absent from the cells, never 0.
	NotReported []string `json:"not_reported,omitempty"`
	// Roofline is what the cells' share of the bandwidth roofline rests
	// on; nil in runs from before it was recorded.
	Roofline *Roofline `json:"roofline,omitempty"`
}

// Figures a server may not report (ServerFacts.NotReported).
const (
	NotReportedKVUsage      = "kv_usage"
	NotReportedPrefixCache  = "prefix_hit_rate"
	NotReportedPreemptions  = "preemptions"
	NotReportedQueue        = "queue"
	NotReportedKVCapacity   = "kv_capacity"
	NotReportedServerTokens = "server_output_tokens"
	NotReportedDecodeTime   = "server_decode_s"
	NotReportedPrefillTime  = "server_prefill_s"
	NotReportedTokenize     = "tokenize"
)

// Reports says whether the server gives a figure (not in NotReported).
func (f ServerFacts) Reports(figure string) bool {
	for _, n := range f.NotReported {
		if n == figure {
			return false
		}
	}
	return true
}

// CellChecks are the per-cell figures of issues 17 and 18: how the requests
// fared beyond the figures of METHOD.md, and the cross-check of RigBench's
// token count against the server's own counters. Embedded in Cell (the JSON
// fields sit at the cell's top level); zero values are omitted.
type CellChecks struct {
	// RetriedRequests counts requests sent again after a transient
	// connection error before any response byte (at most twice each).
	RetriedRequests int `json:"retried_requests,omitempty"`
	// NeverStarted counts requests of the window that got no first token
	// before it closed although they waited at least half of it: their
	// TTFT is "> window" (they count as +∞ in the TTFT quantiles, and a
	// quantile that falls on them is absent).
	NeverStarted int `json:"never_started,omitempty"`
	// EndedByLength counts requests the server ended with finish_reason
	// "length" before max_output tokens: prompt + output reached the
	// server's context limit, so the cell is not Valid.
	EndedByLength int `json:"ended_by_length,omitempty"`
	// IdleWaitS is how long (card seconds) RigBench waited before the
	// warm-up for the server to report nothing running or waiting.
	IdleWaitS float64 `json:"idle_wait_s,omitempty"`

	// ServerOutputTokens is the delta of the server's generated-token
	// counter (vllm:generation_tokens_total, llamacpp:tokens_predicted_total,
	// sglang:generation_tokens_total) from just before the window to after
	// its last request ended.
	ServerOutputTokens int `json:"server_output_tokens,omitempty"`
	// CheckedOutputTokens is RigBench's count of the same tokens: every
	// token received by the window's requests, or, for a server that counts
	// a request when it finishes (llama-server), the usage of the requests
	// that finished.
	CheckedOutputTokens int `json:"checked_output_tokens,omitempty"`
	// ServerTokenDiffPct is 100 × (server − RigBench) / RigBench: nil
	// (absent) when nothing was checked, and present when it is 0, since
	// an exact match is a finding and not "not measured" (issue 30 item 4).
	ServerTokenDiffPct *float64 `json:"server_token_diff_pct,omitempty"`
	// ServerPromptTokens is the delta of the server's prompt-token counter
	// over the same span (llama-server counts only tokens it computed, not
	// cache hits).
	ServerPromptTokens int `json:"server_prompt_tokens,omitempty"`
	// ServerDecodeS is llama-server's own decode time for those tokens
	// (Δ tokens_predicted_seconds_total, summed over its slots), and
	// ServerDecodeTokS = server output tokens / ServerDecodeS, the
	// per-request rate the server measured; next to per_request_tok_s it
	// shows what HTTP and sampling cost.
	ServerDecodeS    float64 `json:"server_decode_s,omitempty"`
	ServerDecodeTokS float64 `json:"server_decode_tok_s,omitempty"`
	// ServerPrefillS is, on a prefill cell, the server's own time computing
	// the cell's prompts (Δ llama-server's prompt_seconds_total, Δ the sum
	// of vLLM's request_prefill_time_seconds), and ServerPromptTokS =
	// server_prompt_tokens / ServerPrefillS, the prompt rate the server
	// measured: beside prompt_tok_s it shows what HTTP, tokenization and
	// the first token's sampling cost (issue 28 item 3).
	ServerPrefillS   float64 `json:"server_prefill_s,omitempty"`
	ServerPromptTokS float64 `json:"server_prompt_tok_s,omitempty"`
}

// ServerCheckTolerancePct is the difference between the server's and
// RigBench's token counts above which a cell gets a note.
const ServerCheckTolerancePct = 2

// The figures of CellChecks in the registry (figures.go): optional
// columns, shown only when some cell has them.
var (
	// FigRetried counts requests sent again after a transient connection
	// error.
	FigRetried = Figure{Key: "retried_requests", Label: "retried", Title: "Retried", Decimals: 0,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return float64(c.RetriedRequests) }}
	// FigNeverStarted counts requests whose TTFT was over the window.
	FigNeverStarted = Figure{Key: "never_started", Label: "never started", Title: "Never started", Decimals: 0,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return float64(c.NeverStarted) }}
	// FigServerOutputTokens is the server's own count of generated tokens.
	FigServerOutputTokens = Figure{Key: "server_output_tokens", Label: "server tokens", Title: "Server tokens", Decimals: 0,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return float64(c.ServerOutputTokens) }}
	// FigServerTokenDiff is how far the server's count is from RigBench's.
	FigServerTokenDiff = Figure{Key: "server_token_diff_pct", Label: "server Δ %", Title: "Server Δ %", Unit: "%", Decimals: 1,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return Value(c.ServerTokenDiffPct) },
		zeroCounts: func(c *Cell) bool { return c.ServerTokenDiffPct != nil }}
	// FigServerPromptTokS is the prompt rate the server measured itself
	// on a prefill cell.
	FigServerPromptTokS = Figure{Key: "server_prompt_tok_s", Label: "server prompt tok/s", Title: "Server prompt tok/s", Unit: "tok/s",
		Decimals: 1, Better: Higher, Phase: PhasePrefill, Optional: true, value: func(c *Cell) float64 { return c.ServerPromptTokS }}
	// FigServerDecodeTokS is the per-request rate the server measured
	// itself (llama-server).
	FigServerDecodeTokS = Figure{Key: "server_decode_tok_s", Label: "server decode tok/s", Title: "Server decode tok/s", Unit: "tok/s",
		Decimals: 1, Better: Higher, Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.ServerDecodeTokS }}
)

// serverFacts checks ServerFacts on import (ValidateRun).
func (v *validator) serverFacts(f ServerFacts) {
	switch f.Personality {
	case "", "vllm", "llama-server", "sglang", "openai":
	default:
		v.fail("server.personality %q is not one of vllm, llama-server, sglang, openai", f.Personality)
	}
	v.intRange("server.slots", f.Slots, 0, maxConc)
	v.count("server.not_reported", len(f.NotReported), MaxTags)
	for _, n := range f.NotReported {
		v.text("server.not_reported", n, MaxNameLen)
	}
	v.roofline(f.Roofline)
}

// checks checks a cell's CellChecks on import (ValidateRun): counts and
// seconds are not negative; the difference in percent may be, down to
// −100 (the server counted nothing).
func (v *validator) checks(where string, c CellChecks) {
	for _, n := range []struct {
		name string
		v    int
	}{{"retried_requests", c.RetriedRequests}, {"never_started", c.NeverStarted}, {"ended_by_length", c.EndedByLength},
		{"server_output_tokens", c.ServerOutputTokens}, {"checked_output_tokens", c.CheckedOutputTokens},
		{"server_prompt_tokens", c.ServerPromptTokens}} {
		v.intRange(where+": "+n.name, n.v, 0, math.MaxInt32)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"idle_wait_s", c.IdleWaitS}, {"server_decode_s", c.ServerDecodeS}, {"server_decode_tok_s", c.ServerDecodeTokS},
		{"server_prefill_s", c.ServerPrefillS}, {"server_prompt_tok_s", c.ServerPromptTokS}} {
		v.num(where+": "+f.name, f.v)
	}
	if d := c.ServerTokenDiffPct; d != nil && (math.IsNaN(*d) || *d < -100 || *d > maxFigure) {
		v.fail("%s: server_token_diff_pct is %v, want a number from -100 to %g", where, *d, maxFigure)
	}
}
