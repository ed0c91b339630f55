package sim

import (
	"bytes"
	"fmt"
	"net/http"
)

// The SGLang personality keeps vLLM's /v1/completions (SGLang's is
// OpenAI-compatible the same way, with a final usage chunk when asked for)
// and changes what a client learns about the server:
//
//   - GET /get_server_info: max_total_num_tokens (the KV pool in tokens),
//     max_running_requests, context_length and version; the simulator adds
//     simulated and speed;
//   - GET /v1/models with max_model_len, owned_by "sglang";
//   - no /version and no /tokenize (404): prompt lengths come from usage;
//   - /metrics with sglang:* names labelled by model_name:
//     num_running_reqs, num_queue_reqs, token_usage (0–1),
//     prompt_tokens_total, generation_tokens_total, cache_hit_rate;
//   - usage as vLLM gives it: in the final chunk with include_usage, in
//     every chunk with continuous_usage_stats;
//   - /v1/chat/completions as vLLM's (chat.go): same template, same
//     chunks, a role delta first.
const sglangVersion = "0.5.2-sim"

func (s *Server) sglangMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /health_generate", s.handleHealth)
	mux.HandleFunc("GET /get_server_info", s.sglangServerInfo)
	mux.HandleFunc("GET /server_info", s.sglangServerInfo)
	mux.HandleFunc("GET /get_model_info", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"model_path": s.model, "tokenizer_path": s.model, "is_generation": true})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{
			"id": s.model, "object": "model", "created": s.created, "owned_by": "sglang", "root": s.model,
			"max_model_len": s.maxModelLen,
		}}})
	})
	mux.HandleFunc("POST /v1/completions", s.handleCompletions)
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /metrics", s.sglangMetrics)
	mux.HandleFunc("GET /debug/truth", s.handleTruth)
	return mux
}

func (s *Server) sglangServerInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.simFacts(map[string]any{
		"model_path":                s.model,
		"max_total_num_tokens":      s.kv.tokens,
		"max_running_requests":      s.cfg.MaxNumSeqs,
		"context_length":            s.maxModelLen,
		"chunked_prefill_size":      s.cfg.MaxNumBatchedTokens,
		"page_size":                 s.prof.BlockSize,
		"disable_radix_cache":       !s.cfg.EnablePrefixCaching,
		"mem_fraction_static":       s.cfg.GPUMemoryUtilization,
		"version":                   sglangVersion,
		"max_req_input_len":         s.maxModelLen - 1,
		"internal_states":           []map[string]any{{"last_gen_throughput": 0.0}},
		"tokenizer_path":            s.model,
		"served_model_name":         s.model,
		"enable_metrics":            true,
		"schedule_policy":           "fcfs",
		"schedule_conservativeness": 1.0,
	}))
}

// sglangLengthError is SGLang's 400 for a prompt longer than the context.
func sglangLengthError(prompt, maxLen int) string {
	return fmt.Sprintf("The input (%d tokens) is longer than the model's context length (%d tokens).", prompt, maxLen)
}

func (s *Server) sglangMetrics(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	s.mu.Lock()
	c := s.core
	c.promote()
	lbl := fmt.Sprintf(`model_name=%q`, s.model)
	metric := func(name, typ, help string, v float64) {
		fmt.Fprintf(&b, "# HELP sglang:%s %s\n# TYPE sglang:%s %s\nsglang:%s{%s} %s\n", name, help, name, typ, name, lbl, fmtFloat(v))
	}
	hit := 0.0
	if c.count.prefixQueries > 0 {
		hit = float64(c.count.prefixHits) / float64(c.count.prefixQueries)
	}
	metric("prompt_tokens_total", "counter", "Number of prefill tokens processed.", float64(c.count.promptTokens))
	metric("generation_tokens_total", "counter", "Number of generation tokens processed.", float64(c.count.generationTokens))
	metric("num_requests_total", "counter", "Number of requests processed.", float64(c.count.finished))
	metric("num_running_reqs", "gauge", "The number of running requests.", float64(len(c.running)))
	metric("num_queue_reqs", "gauge", "The number of requests in the waiting queue.", float64(len(c.waiting)+len(c.api)))
	metric("token_usage", "gauge", "The token usage.", c.pool.usage())
	metric("cache_hit_rate", "gauge", "The prefix cache hit rate.", hit)
	if c.spec != nil {
		metric("spec_accept_length", "gauge", "The average acceptance length of speculative decoding.", c.recentAcceptLength())
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	w.Write(b.Bytes())
}
