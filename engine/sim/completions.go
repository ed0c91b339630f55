package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// genOptions are the fields of a generation request that /v1/completions
// and /v1/chat/completions share: everything but the prompt.
type genOptions struct {
	Model            string         `json:"model"`
	MaxTokens        *int           `json:"max_tokens"`
	MinTokens        int            `json:"min_tokens"`
	IgnoreEOS        bool           `json:"ignore_eos"`
	Stream           bool           `json:"stream"`
	AddSpecialTokens *bool          `json:"add_special_tokens"`
	CacheSalt        string         `json:"cache_salt"`
	StreamOptions    *streamOptions `json:"stream_options"`
	// quality is what the quality model needs beyond the tokens: the
	// prompt's text and the logprobs asked for (quality.go); not JSON.
	quality qualityRequest
}

// streamOptions is OpenAI's stream_options with vLLM's
// continuous_usage_stats.
type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

// completionRequest is the part of vLLM's /v1/completions body the
// simulator honours.
type completionRequest struct {
	genOptions
	Prompt json.RawMessage `json:"prompt"`
	// Logprobs is how many top alternatives to report per token.
	Logprobs *int `json:"logprobs"`
}

// usage is the OpenAI usage object.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func newUsage(prompt, completion int) usage {
	return usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}

type choice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
	StopReason   any     `json:"stop_reason"`
}

type completionChunk struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

// responseShape is what differs between the endpoints that generate: the
// bodies wrapped around the same tokens. The engine, the stream loop, the
// faults and the ground truth are shared (generate).
type responseShape interface {
	// start is the chunk a stream sends just before its first tokens
	// (chat's role chunk), or nil.
	start(u *usage) any
	// delta is a content chunk; finish is set on the last one.
	delta(text string, finish *string, u *usage) any
	// usageChunk is the usage-only chunk that ends a stream with
	// include_usage.
	usageChunk(u usage) any
	// full is the body of a non-streaming answer.
	full(text, finish string, u usage) any
}

// completionShape is /v1/completions': "text_completion" objects with
// choices[].text.
type completionShape struct {
	id, model string
	created   int64
}

func (c completionShape) chunk(choices []choice, u *usage) completionChunk {
	return completionChunk{ID: c.id, Object: "text_completion", Created: c.created, Model: c.model, Choices: choices, Usage: u}
}

func (c completionShape) start(*usage) any { return nil }

func (c completionShape) delta(text string, finish *string, u *usage) any {
	return c.chunk([]choice{{Text: text, FinishReason: finish}}, u)
}

func (c completionShape) usageChunk(u usage) any { return c.chunk([]choice{}, &u) }

func (c completionShape) full(text, finish string, u usage) any {
	return c.chunk([]choice{{Text: text, FinishReason: &finish}}, &u)
}

// parsePrompt reads "prompt" as a string or token ids (also a one-element
// list of either, as the OpenAI API allows).
func parsePrompt(raw json.RawMessage, addSpecial bool) ([]uint32, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return tokenize(text, addSpecial), nil
	}
	var ids []int64
	if err := json.Unmarshal(raw, &ids); err == nil && len(ids) > 0 {
		out := make([]uint32, len(ids))
		for i, id := range ids {
			if id < 0 || id >= vocabSize {
				return nil, fmt.Errorf("token id %d is out of vocabulary", id)
			}
			out[i] = uint32(id)
		}
		return out, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err == nil && len(list) == 1 {
		return parsePrompt(list[0], addSpecial)
	}
	return nil, fmt.Errorf("prompt must be a string or a list of token ids (one prompt per request)")
}

// handleCompletions serves /v1/completions, streaming (SSE) or not.
func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	arrived := s.arrive(r)
	var req completionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", "The request body is not valid JSON: "+err.Error())
		return
	}
	if !s.knownModel(w, req.Model) {
		return
	}
	if len(req.Prompt) == 0 {
		writeError(w, http.StatusBadRequest, "BadRequestError", "Either prompt or prompt_embeds must be provided.")
		return
	}
	prompt, err := parsePrompt(req.Prompt, req.AddSpecialTokens == nil || *req.AddSpecialTokens)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	if req.genOptions.quality, err = readQualityRequest(req.Prompt, req.Logprobs); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	s.generate(w, r, arrived, prompt, req.genOptions, func(id string) responseShape {
		return completionShape{id: id, model: s.model, created: s.created}
	})
}

// knownModel answers vLLM's 404 for a model it does not serve; an empty
// model means the served one.
func (s *Server) knownModel(w http.ResponseWriter, model string) bool {
	if model == "" || model == s.model {
		return true
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("The model `%s` does not exist.", model),
		"type":    "NotFoundError", "param": "model", "code": http.StatusNotFound}})
	return false
}

// generate is the one path of a generation request from its prompt's token
// ids on, for every endpoint that generates: vLLM's length checks, the
// engine (scheduler, KV cache, prefix cache, ground truth) and the answer,
// streamed or whole, in the shape that shapeFor gives for the request's id.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, arrived arrival, prompt []uint32, opts genOptions, shapeFor func(id string) responseShape) {
	if len(prompt) == 0 {
		writeError(w, http.StatusBadRequest, "BadRequestError", "The decoder prompt cannot be empty")
		return
	}
	maxTokens, msg := s.checkLengths(len(prompt), opts.MaxTokens, opts.MinTokens)
	if msg != "" {
		writeError(w, http.StatusBadRequest, "BadRequestError", msg)
		return
	}
	st, failed := s.submit(prompt, maxTokens, opts, arrived)
	if failed {
		writeError(w, http.StatusInternalServerError, "InternalServerError", "Internal server error (simulated fault).")
		return
	}
	defer s.release(st)
	shape := s.withLogprobs(shapeFor(st.rec.ID), st, opts.quality)
	if opts.Stream {
		s.streamResponse(w, r, st, opts.StreamOptions, shape)
		return
	}
	s.fullResponse(w, r, st, shape)
}

// checkLengths applies vLLM's length validation and resolves max_tokens
// (default: what is left of max_model_len). msg is the 400 message, if any.
func (s *Server) checkLengths(promptTokens int, maxTokens *int, minTokens int) (int, string) {
	if promptTokens >= s.maxModelLen && s.cfg.Personality == PersonalitySGLang {
		return 0, sglangLengthError(promptTokens, s.maxModelLen)
	}
	if promptTokens >= s.maxModelLen {
		return 0, fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. "+
			"Please reduce the length of the input messages.", s.maxModelLen, promptTokens)
	}
	m := s.maxModelLen - promptTokens
	if maxTokens != nil {
		m = *maxTokens
		if m < 1 {
			return 0, fmt.Sprintf("max_tokens must be at least 1, got %d.", m)
		}
		if m > s.maxModelLen-promptTokens {
			return 0, fmt.Sprintf("'max_tokens' or 'max_completion_tokens' is too large: %d. This model's maximum context length "+
				"is %d tokens and your request has %d input tokens (%d > %d - %d).",
				m, s.maxModelLen, promptTokens, m, s.maxModelLen, promptTokens)
		}
	}
	if minTokens < 0 || minTokens > m {
		return 0, fmt.Sprintf("min_tokens must be greater than or equal to 0 and less than or equal to max_tokens=%d, got %d.", m, minTokens)
	}
	return m, ""
}

// submit hands a request to the engine. failed is true when the error-rate
// fault picked this request for an HTTP 500.
func (s *Server) submit(prompt []uint32, maxTokens int, req genOptions, arrived arrival) (*stream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	rec := &RequestRecord{ID: fmt.Sprintf("cmpl-%016x", mix64(uint64(s.cfg.Seed)^s.nextID)), PromptTokens: len(prompt), Arrived: arrived.wall}
	s.truth = append(s.truth, rec)
	if s.cfg.Faults.ErrorRate > 0 && s.rng.Float64() < s.cfg.Faults.ErrorRate {
		rec.Error = "HTTP 500 (simulated fault)"
		rec.Finished = time.Now()
		return nil, true
	}
	sq := newSeq(rec.ID, prompt, maxTokens, req.MinTokens, req.IgnoreEOS, req.CacheSalt, s.cfg.Seed, s.prof)
	st := &stream{sq: sq, notify: make(chan struct{}, 1), rec: rec, sent: arrived.sent}
	s.startQuality(st, req.quality.text, maxTokens)
	s.streams[sq] = st
	// The request arrived when its body started to be read: decoding and
	// tokenising it is the API server's work, which the time model already
	// charges, so it must not delay the request a second time, not even
	// by the engine's steps that ran meanwhile (×S on a busy machine:
	// arrive).
	s.core.addAt(sq, arrived.sim)
	rec.SimArrivedS = arrived.sent
	signal(s.wake)
	return st, false
}

// newSeq builds an engine request. The output stream is keyed by the seed
// and the prompt, like greedy decoding: the same prompt gives the same text.
func newSeq(id string, prompt []uint32, maxTokens, minTokens int, ignoreEOS bool, salt string, seed int64, p Profile) *seq {
	key := uint64(seed) * 0x9e3779b97f4a7c15
	for _, t := range prompt {
		key = mix64(key ^ uint64(t))
	}
	sq := &seq{id: id, prompt: prompt, key: key, stopAt: maxTokens, stopReason: "length"}
	if !ignoreEOS {
		span := uint64(p.NaturalMaxTokens - p.NaturalMinTokens + 1)
		natural := p.NaturalMinTokens + int(mix64(key)%span)
		natural = max(natural, minTokens)
		if natural < maxTokens {
			sq.stopAt, sq.stopReason = natural, "stop"
		}
	}
	if salt != "" {
		sq.salt = mix64(hashString(salt))
	}
	return sq
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// release ends a request's life in the engine: a request still going when
// its handler returns was abandoned by the client, so the engine aborts it
// (frees its blocks, stops counting its tokens).
func (s *Server) release(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !st.finished && st.sq.state != stateDone:
		s.core.abort(st.sq)
		st.rec.Cancelled = st.rec.Error == ""
	case !st.finished && !st.sq.failed && !st.sq.aborted:
		// The engine finished it in a step whose tokens were still due
		// when the client went away: the server did finish the request
		// (its record says so), so its counters count it, as publish
		// would have (a busy host's idle close raced this: the record
		// said finished and tokens_predicted_total did not count it).
		s.onFinish(st.sq)
	}
	s.completeRecord(st)
	delete(s.streams, st.sq)
	signal(s.wake)
}

// completeRecord stamps a request's record with its end and its prompt's
// cache counts. A handler calls it before it writes the response's last
// bytes: a client that has read them and asks for the truth must find the
// record whole, not wait for the handler's deferred release. s.mu is held.
// A request abandoned mid-stream gets its end here, from release.
func (s *Server) completeRecord(st *stream) {
	if st.rec.Finished.IsZero() {
		st.rec.Finished = time.Now()
	}
	st.rec.CachedTokens = st.sq.cached
	st.rec.ComputedTokens = st.sq.prefilled
}

// take returns the tokens released since the last call, whether the request
// is finished, and whether the server is closing or dead.
func (s *Server) take(st *stream, sent int) (n int, finished, stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen && !s.closed {
		return 0, false, false // frozen (Freeze): nothing more leaves the server
	}
	return st.published - sent, st.finished, s.closed || s.dead
}

// startStamping makes st a stamped stream: from now on publish keeps its
// steps for takeChunks. s.mu is held. A handler calls it before its first
// take, and before the response's headers, which carry the clock.
func (s *Server) startStamping(st *stream) {
	if st.stamped {
		return
	}
	st.stamped = true
	if st.published > 0 && len(st.steps) == 0 {
		// The engine released tokens before this handler got here (a busy
		// machine starts it late): publish kept no steps for them, since
		// the stream was not stamped yet. They are this stream's first
		// chunks, the first token alone at its own time, or the client
		// would get fewer than the request's tokens and a finish reason
		// "length" short of max_tokens (read as Exceeds model length).
		st.steps = append(st.steps, stepOut{n: 1, at: st.firstAt, first: true})
		if st.published > 1 {
			st.steps = append(st.steps, stepOut{n: st.published - 1, at: st.lastAt})
		}
	}
}

// takeChunks is take for a stamped stream: the tokens released since the
// last call as the chunks to write, each with the simulated time of its
// last token (chunkSteps).
func (s *Server) takeChunks(st *stream) (chunks []stepOut, finished, stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen && !s.closed {
		return nil, false, false // frozen (Freeze): nothing more leaves the server, as in take
	}
	chunks = chunkSteps(st.steps, s.chunkSpan())
	st.steps = st.steps[:0]
	return chunks, st.finished, s.closed || s.dead
}

// streamResponse writes the SSE stream: each wake-up sends every token
// released since the last chunk in one chunk, so a slow consumer gets
// several tokens per chunk, as from vLLM.
func (s *Server) streamResponse(w http.ResponseWriter, r *http.Request, st *stream, so *streamOptions, shape responseShape) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	s.mu.Lock()
	s.setClockHeaders(w.Header(), st.sent)
	s.startStamping(st)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	if fl != nil {
		fl.Flush()
	}
	includeUsage := so != nil && so.IncludeUsage
	continuous := includeUsage && so.ContinuousUsageStats
	f := s.cfg.Faults
	prompt := len(st.sq.prompt)
	usageAt := func(completion int) *usage {
		if !continuous {
			return nil
		}
		u := newUsage(prompt, completion)
		return &u
	}
	sent, started := 0, false
	for {
		select {
		case <-st.notify:
		case <-r.Context().Done():
			return
		}
		chunks, finished, stop := s.takeChunks(st)
		if stop {
			s.markError(st, "the server stopped")
			if s.isDead() {
				panic(http.ErrAbortHandler) // the engine died: break the connection
			}
			return
		}
		if f.StallAfterTokens > 0 {
			var cut bool
			if chunks, cut = truncateChunks(chunks, f.StallAfterTokens-sent); cut {
				finished = false
			}
		}
		if finished && len(chunks) == 0 {
			chunks = []stepOut{{}} // the finish reason alone
		}
		for k, ch := range chunks {
			n := ch.n
			fr := (*string)(nil)
			if finished && k == len(chunks)-1 {
				fr = &st.sq.stopReason
			}
			if f.MalformedChunkAfter > 0 && sent+n > f.MalformedChunkAfter {
				fmt.Fprintf(w, "data: {\"id\":\"%s\",\"choices\":[{\"text\":\"\\u12\n\n", st.rec.ID)
				flush(fl)
				s.markError(st, "malformed chunk (simulated fault)")
				return
			}
			if !started {
				// vLLM sends a chat stream's role chunk with the first
				// output, not before the prefill: it is no earlier first token.
				started = true
				if first := shape.start(usageAt(0)); first != nil && !writeEvent(w, fl, first) {
					return
				}
			}
			if !writeStampedEvent(w, fl, shape.delta(s.textOf(st, sent, sent+n), fr, usageAt(sent+n)), ch.at) {
				return
			}
			sent += n
			s.recordEmit(st, n, ch.at)
		}
		if f.StallAfterTokens > 0 && sent >= f.StallAfterTokens {
			<-r.Context().Done() // stalled: hold the connection until the client gives up
			return
		}
		if finished {
			break
		}
	}
	if includeUsage {
		writeEvent(w, fl, shape.usageChunk(newUsage(prompt, sent)))
	}
	s.mu.Lock()
	s.completeRecord(st) // before [DONE], so a client that read it sees the record complete
	s.mu.Unlock()
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(fl)
}

func flush(fl http.Flusher) {
	if fl != nil {
		fl.Flush()
	}
}

// writeEvent writes one "data: {json}" event; false when the client is gone.
func writeEvent(w http.ResponseWriter, fl http.Flusher, v any) bool {
	return writeStampedEvent(w, fl, v, 0)
}

// writeStampedEvent is writeEvent with the simulated time of the chunk's
// last token in its sim_time_us field (clock.go); at ≤ 0 adds none.
func writeStampedEvent(w http.ResponseWriter, fl http.Flusher, v any, at float64) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	b = stamp(b, at)
	buf := make([]byte, 0, len(b)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return false
	}
	flush(fl)
	return true
}

// recordEmit adds a sent chunk to the ground truth; at is the simulated
// time of its last token where the chunk was stamped with it, else 0.
func (s *Server) recordEmit(st *stream, n int, at float64) {
	if n == 0 {
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.rec.FirstToken.IsZero() {
		st.rec.FirstToken = now
	}
	st.rec.Tokens = append(st.rec.Tokens, Emit{At: now, N: n, SimS: at})
}

func (s *Server) markError(st *stream, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.rec.Error == "" {
		st.rec.Error = msg
	}
}

func (s *Server) isDead() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// fullResponse waits for the whole output and answers in one JSON body.
func (s *Server) fullResponse(w http.ResponseWriter, r *http.Request, st *stream, shape responseShape) {
	for {
		select {
		case <-st.notify:
		case <-r.Context().Done():
			return
		}
		n, finished, stop := s.take(st, 0)
		if stop {
			s.markError(st, "the server stopped")
			if s.isDead() {
				panic(http.ErrAbortHandler)
			}
			writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "The server is shutting down.")
			return
		}
		if !finished {
			continue
		}
		s.recordEmit(st, n, 0)
		s.mu.Lock()
		s.completeRecord(st)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, shape.full(s.textOf(st, 0, n), st.sq.stopReason, newUsage(len(st.sq.prompt), n)))
		return
	}
}

// tokenizeRequest is vLLM's /tokenize body in either of its forms: a
// completion's prompt (add_special_tokens defaults to true) or a chat's
// messages (the chat template applied; add_generation_prompt defaults to
// true and add_special_tokens to false, as for /v1/chat/completions).
type tokenizeRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            json.RawMessage `json:"messages"`
	AddSpecialTokens    *bool           `json:"add_special_tokens"`
	AddGenerationPrompt *bool           `json:"add_generation_prompt"`
}

// ids tokenizes the request the way the matching generation endpoint
// would, so the count equals that endpoint's usage.prompt_tokens.
func (t *tokenizeRequest) ids() ([]uint32, error) {
	if len(t.Messages) > 0 && string(t.Messages) != "null" {
		chat := chatRequest{Messages: t.Messages, AddGenerationPrompt: t.AddGenerationPrompt}
		chat.AddSpecialTokens = t.AddSpecialTokens
		return chat.prompt()
	}
	if len(t.Prompt) == 0 {
		return nil, errors.New("The request needs a JSON body with a prompt or messages.")
	}
	return parsePrompt(t.Prompt, t.AddSpecialTokens == nil || *t.AddSpecialTokens)
}

// handleTokenize serves vLLM's /tokenize.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", "The request needs a JSON body with a prompt or messages.")
		return
	}
	ids, err := req.ids()
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	buf := make([]byte, 0, 64+len(ids)*7)
	buf = append(buf, `{"count":`...)
	buf = strconv.AppendInt(buf, int64(len(ids)), 10)
	buf = append(buf, `,"max_model_len":`...)
	buf = strconv.AppendInt(buf, int64(s.maxModelLen), 10)
	buf = append(buf, `,"tokens":[`...)
	for i, id := range ids {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendUint(buf, uint64(id), 10)
	}
	buf = append(buf, "],\"token_strs\":null}\n"...)
	w.Write(buf)
}
