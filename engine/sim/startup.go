package sim

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// WriteStartupLog prints the lines vLLM prints while starting, with the
// figures of this server, so log readers (the Docker launcher) can be tested
// against it: the version, the KV cache size in tokens, the maximum
// concurrency at max_model_len and "Application startup complete.".
func (s *Server) WriteStartupLog(w io.Writer) {
	p, c := s.prof, s.cfg
	ts := func() string { return time.Now().Format("01-02 15:04:05") }
	info := func(src, format string, a ...any) {
		fmt.Fprintf(w, "INFO %s [%s] %s\n", ts(), src, fmt.Sprintf(format, a...))
	}
	info("api_server.py:1900", "vLLM API server version %s", p.VLLMVersion+"-sim")
	info("utils.py:328", "non-default args: {'model': '%s', 'max_model_len': %d, 'max_num_seqs': %d, 'max_num_batched_tokens': %d, "+
		"'gpu_memory_utilization': %s, 'kv_cache_dtype': '%s', 'enable_prefix_caching': %s%s}",
		s.model, s.maxModelLen, c.MaxNumSeqs, c.MaxNumBatchedTokens, fmtFloat(c.GPUMemoryUtilization), c.KVCacheDtype, pyBool(c.EnablePrefixCaching), parallelArgs(c))
	info("model.py:547", "Resolved architecture: SimulatedForCausalLM (RigBench simulator, profile %s)", p.Name)
	tp, pp := parallelSize(c)
	n := tp * pp
	if n == 1 {
		info("gpu_model_runner.py:2602", "Starting to load model %s on %s...", s.model, p.GPUName)
		info("gpu_model_runner.py:2634", "Model loading took %.4f GiB and %.6f seconds", p.WeightsGiB, p.LoadSeconds)
		info("gpu_worker.py:298", "Available KV cache memory: %.2f GiB", s.kv.availableBytes/giB)
	} else {
		// vLLM's multiprocess executor: one worker per card, each logging
		// its own share (weights and KV memory split n ways).
		info("multiproc_executor.py:720", "Creating %d workers for world size %d (tensor parallel %d, pipeline parallel %d)", n, n, tp, pp)
		for r := range n {
			fmt.Fprintf(w, "(Worker_TP%d pid=%d) INFO %s [parallel_state.py:1165] rank %d in world size %d is assigned as DP rank 0, PP rank %d, TP rank %d, EP rank %d\n",
				r%tp, 100+r, ts(), r, n, r/tp, r%tp, r%tp)
		}
		for r := range n {
			fmt.Fprintf(w, "(Worker_TP%d pid=%d) INFO %s [gpu_model_runner.py:2634] Model loading took %.4f GiB and %.6f seconds\n",
				r%tp, 100+r, ts(), p.WeightsGiB/float64(n), p.LoadSeconds)
		}
		for r := range n {
			fmt.Fprintf(w, "(Worker_TP%d pid=%d) INFO %s [gpu_worker.py:298] Available KV cache memory: %.2f GiB\n",
				r%tp, 100+r, ts(), s.kv.availableBytes/giB/float64(n))
		}
	}
	info("kv_cache_utils.py:1087", "GPU KV cache size: %s tokens", commas(s.kv.tokens))
	info("kv_cache_utils.py:1091", "Maximum concurrency for %s tokens per request: %.2fx",
		commas(s.maxModelLen), float64(s.kv.tokens)/float64(s.maxModelLen))
	info("core.py:210", "init engine (profile, create kv cache, warmup model) took %.2f seconds", p.LoadSeconds/3)
	info("api_server.py:1971", "Starting vLLM API server 0 on http://%s:%d", c.Host, c.Port)
	info("launcher.py:34", "Available routes are: /health, /version, /v1/models, /tokenize, /v1/completions, /metrics")
	fmt.Fprintf(w, "INFO:     Started server process [1]\n")
	fmt.Fprintf(w, "INFO:     Waiting for application startup.\n")
	fmt.Fprintf(w, "INFO:     Application startup complete.\n")
	fmt.Fprintf(w, "INFO:     Uvicorn running on http://%s:%d (Press CTRL+C to quit)\n", c.Host, c.Port)
}

// commas formats n with thousands separators, as vLLM's logs do.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// parallelArgs is the parallel sizes among vLLM's non-default args.
func parallelArgs(c Config) string {
	out := ""
	if c.TensorParallelSize > 1 {
		out += fmt.Sprintf(", 'tensor_parallel_size': %d", c.TensorParallelSize)
	}
	if c.PipelineParallelSize > 1 {
		out += fmt.Sprintf(", 'pipeline_parallel_size': %d", c.PipelineParallelSize)
	}
	return out
}
