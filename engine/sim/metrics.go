package sim

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
)

// handleMetrics serves /metrics in Prometheus text format with vLLM's metric
// names. Latency histograms are in simulated seconds: what the imitated card
// would have reported.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	s.writeMetrics(&b)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *Server) writeMetrics(b *bytes.Buffer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.core
	lbl := fmt.Sprintf(`engine="0",model_name=%q`, s.model)
	gauge := func(name, help string, v float64) {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n%s{%s} %s\n", name, help, name, name, lbl, fmtFloat(v))
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s counter\n%s{%s} %s\n", name, help, name, name, lbl, fmtFloat(float64(v)))
	}
	cfg := s.cfg
	fmt.Fprintf(b, "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\n")
	fmt.Fprintf(b, "vllm:cache_config_info{block_size=\"%d\",cache_dtype=\"%s\",enable_prefix_caching=\"%s\",engine=\"0\","+
		"gpu_memory_utilization=\"%s\",kv_cache_size_tokens=\"%d\",num_cpu_blocks=\"None\",num_gpu_blocks=\"%d\","+
		"prefix_caching_hash_algo=\"sha256\"} 1.0\n",
		s.prof.BlockSize, cfg.KVCacheDtype, pyBool(cfg.EnablePrefixCaching), fmtFloat(cfg.GPUMemoryUtilization),
		s.kv.tokens, s.kv.numBlocks)
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.", float64(len(c.running)))
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", float64(c.waitingGauge()))
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", c.pool.usage())
	counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", c.count.prefixQueries)
	counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", c.count.prefixHits)
	counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", c.count.preemptions)
	counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", c.count.promptTokens)
	counter("vllm:generation_tokens_total", "Number of generation tokens processed.", c.count.generationTokens)
	counter("vllm:request_success_total", "Count of successfully processed requests.", c.count.finished)
	counter("vllm:prompt_tokens_cached_total", "Number of cached prompt tokens (local + external).", c.count.promptCached)
	fmt.Fprintf(b, "# HELP vllm:prompt_tokens_by_source_total Number of prompt tokens by source.\n# TYPE vllm:prompt_tokens_by_source_total counter\n")
	for _, src := range []struct {
		name string
		n    int64
	}{{"local_compute", c.count.promptComputed}, {"local_cache_hit", c.count.promptCached}, {"external_kv_transfer", 0}} {
		fmt.Fprintf(b, "vllm:prompt_tokens_by_source_total{%s,source=%q} %s\n", lbl, src.name, fmtFloat(float64(src.n)))
	}
	if c.spec != nil {
		// vLLM exports these only for a speculative launch.
		counter("vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.", c.count.spec.drafts)
		counter("vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.", c.count.spec.draftTokens)
		counter("vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.", c.count.spec.accepted)
		fmt.Fprintf(b, "# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.\n# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n")
		for i := range c.spec.Tokens {
			n := int64(0)
			if i < len(c.count.spec.perPos) {
				n = c.count.spec.perPos[i]
			}
			fmt.Fprintf(b, "vllm:spec_decode_num_accepted_tokens_per_pos_total{%s,position=\"%d\"} %s\n", lbl, i, fmtFloat(float64(n)))
		}
	}
	c.hist.ttft.write(b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lbl)
	c.hist.itl.write(b, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", lbl)
	c.hist.e2e.write(b, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", lbl)
	c.hist.queue.write(b, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", lbl)
	c.hist.prefill.write(b, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", lbl)
	c.hist.prefillTokens.write(b, "vllm:request_prefill_kv_computed_tokens",
		"Histogram of new KV tokens computed during prefill (excluding cached tokens).", lbl)
}

// fmtFloat prints like Python's repr of a float ("1.0", "0.9").
func fmtFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == 'e' || s[i] == 'I' || s[i] == 'N' {
			return s
		}
	}
	return s + ".0"
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
