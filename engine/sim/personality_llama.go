package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path"
	"strings"
)

// The llama-server personality imitates llama.cpp's tools/server as build
// b9928 answers (issue 28, checked against a real server):
//
//   - GET /props: exactly b9928's keys (bos_token, build_info,
//     chat_template, chat_template_caps, cors_proxy_enabled,
//     default_generation_settings {n_ctx: a slot's context, params},
//     endpoint_metrics, endpoint_props, endpoint_slots, eos_token,
//     is_sleeping, media_marker, modalities, model_alias, model_ftype,
//     model_path, total_slots, ui, ui_settings) and, being a simulator,
//     its own marker simulated with speed. It does not say how large the
//     KV pool is, nor whether the slots share it (-kvu): a client must be
//     told (--kv-capacity);
//   - GET /slots: one object per slot with id, n_ctx (the slot's context:
//     the whole pool with -kvu, -c / -np without) and is_processing;
//   - GET /v1/models: the model path as id, with meta (n_ctx_train, n_ctx);
//   - no /version (404);
//   - POST /tokenize reads only "content" (and "add_special", default
//     false) and answers 200 {"tokens":[]} to a body without content;
//   - /metrics with llamacpp:* names and no labels; the predicted-token
//     counters grow when a request finishes, not while it decodes;
//   - /v1/completions and /v1/chat/completions (the ChatML template of
//     chat.go, whose text POST /apply-template returns) stream without
//     usage except in the last chunk, which also carries "timings"
//     (prompt_n, cache_n, prompt_ms, predicted_n, predicted_ms, … in the
//     card's milliseconds); a chat stream opens with a role delta
//     ("content": null) and ends with an empty delta; no headers are sent
//     until the request has a slot and its first token, and a queued
//     request whose client left is noticed only then;
//   - a prompt cache per slot (slots.go): a request reuses the longest
//     common prefix with the last prompt of the slot it is given, token by
//     token, and no KV is shared between slots;
//   - a cold first prompt (cold.go): a fresh server's first prompt of at
//     least 32 tokens computes at 0.72 of the rate of later ones;
//   - n_ctx tokens of KV shared by all slots: a request the pool cannot
//     hold fails with 400 exceed_context_size_error "Context size has been
//     exceeded."; a prompt longer than the slot's context gets "request (N
//     tokens) exceeds the available context size (M tokens), try
//     increasing it"; output stops with finish_reason "length" when prompt
//     plus output reach the slot's context.
const llamaBuild = "b9928-sim"

func (s *Server) llamaMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /props", s.llamaProps)
	mux.HandleFunc("GET /slots", s.llamaSlots)
	mux.HandleFunc("GET /v1/models", s.llamaModels)
	mux.HandleFunc("GET /models", s.llamaModels)
	mux.HandleFunc("POST /tokenize", s.llamaTokenize)
	mux.HandleFunc("POST /v1/completions", s.llamaCompletions)
	mux.HandleFunc("POST /completions", s.llamaCompletions)
	mux.HandleFunc("POST /v1/chat/completions", s.llamaChat)
	mux.HandleFunc("POST /chat/completions", s.llamaChat)
	mux.HandleFunc("POST /apply-template", s.llamaApplyTemplate)
	mux.HandleFunc("GET /metrics", s.llamaMetrics)
	mux.HandleFunc("GET /debug/truth", s.handleTruth)
	return mux
}

// llamaModelID is what llama-server calls the model without --alias: the
// path of the GGUF file it loaded.
func (s *Server) llamaModelID() string {
	return "/models/" + path.Base(s.model) + ".gguf"
}

// simFacts are the fields the simulator adds to a personality's info
// endpoint so a client can convert its times (see handleVersion).
func (s *Server) simFacts(v map[string]any) map[string]any {
	v["simulated"] = true
	if sp := s.cfg.Speed; sp >= 1 && !math.IsInf(sp, 0) {
		v["speed"] = sp
	}
	return v
}

func (s *Server) llamaProps(w http.ResponseWriter, r *http.Request) {
	l := s.cfg.Llama
	writeJSON(w, http.StatusOK, s.simFacts(map[string]any{
		"bos_token":     "<|endoftext|>",
		"build_info":    llamaBuild,
		"chat_template": "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
		"chat_template_caps": map[string]bool{"supports_parallel_tool_calls": false, "supports_preserve_reasoning": false,
			"supports_string_content": true, "supports_system_role": true, "supports_tool_calls": false, "supports_tools": false,
			"supports_typed_content": false},
		"cors_proxy_enabled": false,
		"default_generation_settings": map[string]any{
			"n_ctx":  l.slotCtx(),
			"params": map[string]any{"n_predict": -1, "temperature": 0.8, "top_k": 40, "top_p": 0.95, "stream": true, "cache_prompt": true},
		},
		"endpoint_metrics": true,
		"endpoint_props":   false,
		"endpoint_slots":   true,
		"eos_token":        "<|im_end|>",
		"is_sleeping":      false,
		"media_marker":     "<__media__>",
		"modalities":       map[string]bool{"vision": false, "audio": false},
		"model_alias":      path.Base(s.model),
		"model_ftype":      "Q8_0",
		"model_path":       s.llamaModelID(),
		"total_slots":      l.Slots,
		"ui":               true,
		"ui_settings":      map[string]any{},
	}))
}

func (s *Server) llamaSlots(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.core.promote()
	busy := len(s.core.running)
	s.mu.Unlock()
	l := s.cfg.Llama
	out := make([]map[string]any, l.Slots)
	for i := range out {
		out[i] = map[string]any{"id": i, "id_task": -1, "n_ctx": l.slotCtx(), "speculative": false, "is_processing": i < busy}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) llamaModels(w http.ResponseWriter, r *http.Request) {
	id := s.llamaModelID()
	writeJSON(w, http.StatusOK, map[string]any{
		"models": []map[string]any{{"name": id, "model": id, "type": "model", "capabilities": []string{"completion"}}},
		"object": "list",
		"data": []map[string]any{{
			"id": id, "object": "model", "created": s.created, "owned_by": "llamacpp",
			"meta": map[string]any{"vocab_type": 2, "n_vocab": vocabSize, "n_ctx_train": s.prof.ModelMaxLen,
				"n_ctx": s.cfg.Llama.CtxSize, "n_embd": 2560, "n_params": 4022468096},
		}},
	})
}

// llamaTokenize reads {"content": "…", "add_special": bool}; anything else
// gets an empty token list, as llama-server answers.
func (s *Server) llamaTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Content    json.RawMessage `json:"content"`
		AddSpecial bool            `json:"add_special"`
	}
	ids := []uint32{}
	if json.NewDecoder(r.Body).Decode(&req) == nil {
		var text string
		if json.Unmarshal(req.Content, &text) == nil {
			ids = tokenize(text, req.AddSpecial)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": ids})
}

// llamaError writes llama-server's error body.
func llamaError(w http.ResponseWriter, code int, typ, msg string, extra map[string]any) {
	e := map[string]any{"code": code, "message": msg, "type": typ}
	for k, v := range extra {
		e[k] = v
	}
	writeJSON(w, code, map[string]any{"error": e})
}

// llamaCompletionRequest is what llama-server reads of /v1/completions.
type llamaCompletionRequest struct {
	llamaOptions
	Prompt json.RawMessage `json:"prompt"`
}

func (s *Server) llamaCompletions(w http.ResponseWriter, r *http.Request) {
	arrived := s.arrive(r)
	var req llamaCompletionRequest
	prompt, ok := llamaRead(w, r, &req, func() json.RawMessage { return req.Prompt }, `"prompt" must be provided`,
		func(m json.RawMessage) ([]uint32, error) { return parsePrompt(m, true) })
	if ok {
		s.llamaGenerate(w, r, arrived, prompt, req.llamaOptions, false)
	}
}

// llamaRead reads a generation request's body into req and the prompt its
// field (the prompt or the messages, as field returns it after the read)
// gives with parse, answering llama-server's 400 otherwise: a body that is
// not JSON, the field missing (missing says so), or one that does not
// parse. Completions and chats differ only in the field and its parser.
func llamaRead(w http.ResponseWriter, r *http.Request, req any, field func() json.RawMessage, missing string,
	parse func(json.RawMessage) ([]uint32, error)) ([]uint32, bool) {
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		llamaError(w, http.StatusBadRequest, "invalid_request_error", "Failed to parse the request body as JSON", nil)
		return nil, false
	}
	if f := field(); len(f) == 0 || string(f) == "null" {
		llamaError(w, http.StatusBadRequest, "invalid_request_error", missing, nil)
		return nil, false
	}
	prompt, err := parse(field())
	if err != nil {
		llamaError(w, http.StatusBadRequest, "invalid_request_error", err.Error(), nil)
		return nil, false
	}
	return prompt, true
}

// llamaOptions are what llama-server reads of a generation request besides
// its prompt or messages.
type llamaOptions struct {
	MaxTokens *int `json:"max_tokens"`
	NPredict  *int `json:"n_predict"`
	IgnoreEOS bool `json:"ignore_eos"`
	Stream    bool `json:"stream"`
}

// llamaChatRequest is what llama-server reads of /v1/chat/completions.
type llamaChatRequest struct {
	llamaOptions
	Messages json.RawMessage `json:"messages"`
}

// llamaChat serves /v1/chat/completions: the model's chat template
// (chat.go, no BOS), then the same slot, context and stream rules as a
// completion.
func (s *Server) llamaChat(w http.ResponseWriter, r *http.Request) {
	arrived := s.arrive(r)
	var req llamaChatRequest
	prompt, ok := llamaRead(w, r, &req, func() json.RawMessage { return req.Messages }, "'messages' is required",
		func(m json.RawMessage) ([]uint32, error) { return chatPrompt(m, true, false) })
	if ok {
		s.llamaGenerate(w, r, arrived, prompt, req.llamaOptions, true)
	}
}

// llamaApplyTemplate serves /apply-template: the chat template applied to
// messages, as text ({"prompt": …}); /tokenize of that text without
// add_special counts what a chat request's usage reports.
func (s *Server) llamaApplyTemplate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		llamaError(w, http.StatusBadRequest, "invalid_request_error", "'messages' is required", nil)
		return
	}
	msgs, err := parseMessages(req.Messages)
	if err != nil {
		llamaError(w, http.StatusBadRequest, "invalid_request_error", err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": chatTemplate(msgs, true)})
}

// llamaGenerate checks a prompt against the slot's context and answers it
// (llamaStream), for completions and chat alike.
func (s *Server) llamaGenerate(w http.ResponseWriter, r *http.Request, arrived arrival, prompt []uint32, req llamaOptions, chat bool) {
	if len(prompt) == 0 {
		llamaError(w, http.StatusBadRequest, "invalid_request_error", "Input prompt is empty", nil)
		return
	}
	slot := s.cfg.Llama.slotCtx()
	if len(prompt) >= slot {
		llamaError(w, http.StatusBadRequest, "exceed_context_size_error",
			fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", len(prompt), slot),
			map[string]any{"n_prompt_tokens": len(prompt), "n_ctx": slot})
		return
	}
	// Output stops when prompt + output reach the slot's context, whatever
	// max_tokens asked ("length").
	m := slot - len(prompt)
	for _, p := range []*int{req.MaxTokens, req.NPredict} {
		if p != nil && *p >= 0 {
			m = min(m, *p)
		}
	}
	m = max(m, 1)
	st, failed := s.submit(prompt, m, genOptions{IgnoreEOS: req.IgnoreEOS}, arrived)
	if failed {
		llamaError(w, http.StatusInternalServerError, "server_error", "Internal server error (simulated fault).", nil)
		return
	}
	defer s.release(st)
	s.llamaStream(w, r, st, req.Stream, chat)
}

// seqFailed reports whether the KV pool could not hold the request.
func (s *Server) seqFailed(st *stream) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return st.sq.failed
}

const llamaCtxExceeded = "Context size has been exceeded."

// llamaStream answers a completion or a chat: nothing is written until the
// request has its first token (or fails), and while nothing is written a
// client that left goes unnoticed, as with llama-server. Usage and timings
// come only with the last chunk (or the whole answer).
func (s *Server) llamaStream(w http.ResponseWriter, r *http.Request, st *stream, streaming, chat bool) {
	fl, _ := w.(http.Flusher)
	id, object := "cmpl-"+st.rec.ID[5:], "text_completion"
	if chat {
		id, object = "chatcmpl-"+st.rec.ID[5:], "chat.completion.chunk"
	}
	chunk := map[string]any{"id": id, "object": object, "created": s.created,
		"model": s.llamaModelID(), "system_fingerprint": llamaBuild}
	prompt := len(st.sq.prompt)
	sent, started := 0, false
	var text strings.Builder
	if streaming {
		// A streamed answer's chunks carry the simulator's clock, as the
		// vLLM personality's do (clock.go): a client on a busy machine
		// places them where the card made them.
		s.mu.Lock()
		s.startStamping(st)
		s.mu.Unlock()
	}
	for {
		var gone <-chan struct{}
		if started {
			gone = r.Context().Done()
		}
		select {
		case <-st.notify:
		case <-gone:
			return
		case <-s.done:
		}
		var (
			chunks         []stepOut
			n              int
			finished, stop bool
		)
		if streaming {
			chunks, finished, stop = s.takeChunks(st)
			for _, ch := range chunks {
				n += ch.n
			}
		} else {
			n, finished, stop = s.take(st, sent)
		}
		if stop {
			s.markError(st, "the server stopped")
			if s.isDead() {
				panic(http.ErrAbortHandler)
			}
			return
		}
		if s.seqFailed(st) {
			s.markError(st, llamaCtxExceeded)
			if !started {
				llamaError(w, http.StatusBadRequest, "exceed_context_size_error", llamaCtxExceeded, nil)
				return
			}
			writeEvent(w, fl, map[string]any{"error": map[string]any{"code": 400, "message": llamaCtxExceeded, "type": "exceed_context_size_error"}})
			return
		}
		if n == 0 && !finished {
			continue
		}
		if !started {
			if r.Context().Err() != nil {
				return // the client left while queued: noticed now, dropped
			}
			started = true
			if streaming {
				w.Header().Set("Content-Type", "text/event-stream")
				s.mu.Lock()
				s.setClockHeaders(w.Header(), st.sent)
				s.mu.Unlock()
				w.WriteHeader(http.StatusOK)
				if chat {
					chunk["choices"] = llamaChoice(true, true, "", nil, map[string]any{"role": "assistant", "content": nil})
					if !writeEvent(w, fl, chunk) {
						return
					}
				}
			}
		}
		if streaming {
			for _, ch := range chunks {
				if ch.n == 0 {
					continue
				}
				piece := outputText(st.sq.key, sent, sent+ch.n)
				chunk["choices"] = llamaChoice(chat, true, piece, nil, map[string]any{"content": piece})
				if !writeStampedEvent(w, fl, chunk, ch.at) {
					return
				}
				sent += ch.n
				s.recordEmit(st, ch.n, ch.at)
			}
		} else {
			text.WriteString(outputText(st.sq.key, sent, sent+n))
			sent += n
			s.recordEmit(st, n, 0)
		}
		if finished {
			break
		}
	}
	fr := st.sq.stopReason
	chunk["usage"] = newUsage(prompt, sent)
	chunk["timings"] = s.llamaTimings(st)
	s.mu.Lock()
	s.completeRecord(st)
	s.mu.Unlock()
	// A streamed answer sent its text already: its last chunk has none.
	chunk["choices"] = llamaChoice(chat, streaming, text.String(), fr, map[string]any{})
	if !streaming {
		if chat {
			chunk["object"] = "chat.completion"
		}
		writeJSON(w, http.StatusOK, chunk)
		return
	}
	writeEvent(w, fl, chunk)
	fmt.Fprint(w, "data: [DONE]\n\n")
	flush(fl)
}

// llamaChoice is the one choice of a llama-server answer in its endpoint's
// shape, for every chunk of it: a completion's text, a chat stream's delta,
// a whole chat answer's message; finish is nil until the last.
func llamaChoice(chat, streaming bool, text string, finish any, delta map[string]any) []map[string]any {
	switch {
	case !chat:
		return []map[string]any{{"text": text, "index": 0, "logprobs": nil, "finish_reason": finish}}
	case !streaming:
		return []map[string]any{{"finish_reason": finish, "index": 0, "message": map[string]any{"role": "assistant", "content": text}}}
	}
	return []map[string]any{{"finish_reason": finish, "index": 0, "delta": delta}}
}

// llamaTimings is llama-server's "timings" object of a finished request, in
// the simulated card's milliseconds: the prompt tokens it computed (cache_n
// came from the cache) and how long that took, and the tokens it generated
// from the first to the last.
func (s *Server) llamaTimings(st *stream) map[string]any {
	s.mu.Lock()
	sq := st.sq
	promptN, cacheN, predictedN := len(sq.prompt)-sq.cached, sq.cached, sq.output
	promptMs := max(0, sq.firstTokenAt-sq.scheduledAt) * 1000
	predictedMs := max(0, sq.lastTokenAt-sq.firstTokenAt) * 1000
	s.mu.Unlock()
	per := func(ms float64, n int) (perToken, perSecond float64) {
		if n <= 0 || ms <= 0 {
			return 0, 0
		}
		return ms / float64(n), 1000 * float64(n) / ms
	}
	pTok, pSec := per(promptMs, promptN)
	// Generation time spans the gaps between tokens: one fewer than the
	// tokens generated.
	gTok, gSec := per(predictedMs, predictedN-1)
	return map[string]any{
		"cache_n": cacheN, "prompt_n": promptN, "prompt_ms": promptMs,
		"prompt_per_token_ms": pTok, "prompt_per_second": pSec,
		"predicted_n": predictedN, "predicted_ms": predictedMs,
		"predicted_per_token_ms": gTok, "predicted_per_second": gSec,
	}
}

// llamaMetrics serves llama-server's /metrics (llamacpp:* names, no
// labels, times in simulated seconds).
func (s *Server) llamaMetrics(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	s.mu.Lock()
	c, p := s.core, &s.pers
	c.promote()
	metric := func(name, typ, help string, v float64) {
		fmt.Fprintf(&b, "# HELP llamacpp:%s %s\n# TYPE llamacpp:%s %s\nllamacpp:%s %s\n", name, help, name, typ, name, fmtFloat(v))
	}
	rate := func(n int64, secs float64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	busyPerDecode := 0.0
	if c.count.steps > 0 {
		busyPerDecode = float64(c.count.generationTokens) / float64(c.count.steps)
	}
	metric("prompt_tokens_total", "counter", "Number of prompt tokens processed.", float64(p.promptTokens))
	metric("prompt_seconds_total", "counter", "Prompt process time", p.promptSeconds)
	metric("tokens_predicted_total", "counter", "Number of generation tokens processed.", float64(p.predictedTokens))
	metric("tokens_predicted_seconds_total", "counter", "Predict process time", p.predictedSecs)
	metric("n_decode_total", "counter", "Total number of llama_decode() calls", float64(c.count.steps))
	metric("n_busy_slots_per_decode", "counter", "Average number of busy slots per llama_decode() call", busyPerDecode)
	metric("prompt_tokens_seconds", "gauge", "Average prompt throughput in tokens/s.", rate(p.promptTokens, p.promptSeconds))
	metric("predicted_tokens_seconds", "gauge", "Average generation throughput in tokens/s.", rate(p.predictedTokens, p.predictedSecs))
	metric("requests_processing", "gauge", "Number of requests processing.", float64(len(c.running)))
	metric("requests_deferred", "gauge", "Number of requests deferred.", float64(len(c.waiting)+len(c.api)))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.Write(b.Bytes())
}
