package vllm_test

import (
	"errors"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Sample lines of each wording in shared/VLLM.md, with the prefixes real
// servers print before them.
func TestRecognizeFacts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line string
		want vllm.Fact
	}{
		{"INFO 09-02 10:00:01 gpu_executor.py:122] # GPU blocks: 1234, # CPU blocks: 512",
			vllm.Fact{Kind: vllm.FactKVCacheBlocks, GPUBlocks: 1234, CPUBlocks: 512}},
		{"INFO 03-01 # CUDA blocks: 2,036, # CPU blocks: 0",
			vllm.Fact{Kind: vllm.FactKVCacheBlocks, GPUBlocks: 2036}},
		{"(EngineCore_0 pid=212) INFO 06-10 12:00:00 [kv_cache_utils.py:716] GPU KV cache size: 36,864 tokens",
			vllm.Fact{Kind: vllm.FactKVCacheTokens, Tokens: 36864}},
		{"INFO [kv_cache_utils.py:720] Maximum concurrency for 32,768 tokens per request: 1.12x",
			vllm.Fact{Kind: vllm.FactMaxConcurrency, ConcurrencyTokens: 32768, MaxConcurrency: 1.12}},
		{"(EngineCore_DP0 pid=301) INFO 11-02 [kv_cache_utils.py:1087] GPU KV cache size: 34,952 tokens, Maximum concurrency for 8,192 tokens per request: 4.27x",
			vllm.Fact{Kind: vllm.FactKVCacheTokens, Tokens: 34952, ConcurrencyTokens: 8192, MaxConcurrency: 4.27}},
		{"INFO [gpu_worker.py:276] Available KV cache memory: 5.73 GiB",
			vllm.Fact{Kind: vllm.FactKVCacheMemory, GiB: 5.73}},
		{"(APIServer pid=1) INFO 10-10 [api_server.py:1839] vLLM API server version 0.11.0",
			vllm.Fact{Kind: vllm.FactVersion, Version: "0.11.0"}},
		{"INFO 08-01 [core.py:69] Initializing a V1 LLM engine (v0.10.1.1) with config: model='m'",
			vllm.Fact{Kind: vllm.FactVersion, Version: "0.10.1.1"}},
		{"INFO llm_engine.py:237] Initializing an LLM engine (v0.6.3.post1) with config:",
			vllm.Fact{Kind: vllm.FactVersion, Version: "0.6.3.post1"}},
		{"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)", vllm.Fact{Kind: vllm.FactReadyHint}},
		{"INFO 01-01 api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000", vllm.Fact{Kind: vllm.FactReadyHint}},
		{"INFO:     Application startup complete.", vllm.Fact{Kind: vllm.FactReadyHint}},
		{"INFO 01-01 loader.py:1] Loading weights took 3.2 seconds", vllm.Fact{Kind: vllm.FactModelLoading, Seconds: 3.2}},
		{"(EngineCore_DP0 pid=301) INFO 11-02 [gpu_model_runner.py:2634] Model loading took 7.64 GiB and 32.969258 seconds",
			vllm.Fact{Kind: vllm.FactModelLoading, GiB: 7.64, Seconds: 32.969258}},
		{"INFO [gpu_model_runner.py:1] Model loading took 12.66 GiB memory and 31.66 seconds",
			vllm.Fact{Kind: vllm.FactModelLoading, GiB: 12.66, Seconds: 31.66}},
		{"INFO [monitor.py:34] torch.compile takes 45.81 s in total", vllm.Fact{Kind: vllm.FactCompile, Seconds: 45.81}},
		{"INFO [backends.py:215] Directly load the compiled graph(s) for shape None from the cache, took 4.190 s",
			vllm.Fact{Kind: vllm.FactCompileCacheHit}},
		{"INFO [gpu_model_runner.py:3480] Graph capturing finished in 37 secs, took 0.45 GiB",
			vllm.Fact{Kind: vllm.FactGraphCapture, Seconds: 37}},
		{"INFO [core.py:210] init engine (profile, create kv cache, warmup model) took 90.84 seconds", vllm.Fact{}},
	}
	for _, tc := range cases {
		got, err := vllm.Recognize(tc.line)
		if err != nil || got != tc.want {
			t.Errorf("Recognize(%q)\n got %+v, %v\nwant %+v", tc.line, got, err, tc.want)
		}
	}
}

func TestRecognizeStartupErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line     string
		kind     vllm.ErrorKind
		mml      int
		util     float64
		explain  string
		wantText string
	}{
		{"ValueError: To serve at least one request with the model's max seq len (131072), (8.0 GiB KV cache is needed, which is larger than the available KV cache memory (2.7 GiB). Based on the available memory, the estimated maximum model length is 44320. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
			vllm.ErrMaxModelLen, 44320, 0, "", "max model length too large for this card's KV cache: try --max-model-len 44320"},
		{"ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (22176). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
			vllm.ErrMaxModelLen, 22176, 0, "", ""},
		{"ValueError: Free memory on device (3.21/4.0 GiB) on startup is less than desired GPU memory utilization (0.85, 3.4 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
			vllm.ErrFreeMemory, 0, 0.78, "", ""},
		{"ValueError: User-specified max_model_len (1000000) is greater than the derived max_model_len (max_position_embeddings=262144 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
			vllm.ErrMaxModelLenAboveModel, 262144, 0, "max model length 1000000 is above the model's own limit of 262144 tokens", ""},
		{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", vllm.ErrOutOfMemory, 0, 0, "", ""},
		{"torch.cuda.OutOfMemoryError: CUDA out of memory.", vllm.ErrOutOfMemory, 0, 0, "", ""},
		{"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", vllm.ErrNoCacheMemory, 0, 0, "", ""},
		{"ValueError: The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.",
			vllm.ErrQuantizationGPU, 0, 0, "this card (compute capability 7.0) is too old for awq quantisation, which needs 7.5", ""},
		{"ValueError: No valid attention backend found for cuda with head_size: 256", vllm.ErrNoAttentionBackend, 0, 0, "", ""},
		{"OSError: You are trying to access a gated repo. Cannot access gated repo for url https://huggingface.co/meta-llama/x.", vllm.ErrGatedModel, 0, 0, "", ""},
		{"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url", vllm.ErrGatedModel, 0, 0, "", ""},
		{"OSError: Invalid repository ID or local directory specified: 'nobody/nothing'.", vllm.ErrModelNotFound, 0, 0, "", ""},
		{"ValueError: Model architectures ['FancyForCausalLM'] are not supported for now. Supported architectures: ...",
			vllm.ErrArchitecture, 0, 0, "this vLLM version cannot run the FancyForCausalLM architecture", ""},
		{"ValueError: The repository for m contains custom code which must be executed to correctly load the model. Please pass the argument `trust_remote_code=True` to allow custom code to be run.",
			vllm.ErrTrustRemoteCode, 0, 0, "", ""},
		{"api_server.py: error: unrecognized arguments: --foo 3", vllm.ErrUnknownArgument, 0, 0, "the vLLM in this image does not know --foo 3", ""},
		{"vllm serve: error: argument --kv-cache-dtype: invalid choice: 'nvfp4' (choose from 'auto', 'fp8')", vllm.ErrInvalidArgumentValue, 0, 0, "", ""},
		{"RuntimeError: Failed to infer device type", vllm.ErrNoGPU, 0, 0, "", ""},
	}
	for _, tc := range cases {
		_, e := vllm.Recognize(tc.line)
		if e == nil {
			t.Errorf("Recognize(%q): no error recognised", tc.line)
			continue
		}
		if e.Kind != tc.kind || e.SuggestedMaxModelLen != tc.mml || e.SuggestedGPUMemoryUtilization != tc.util {
			t.Errorf("Recognize(%q) = %+v; want kind %s mml %d util %v", tc.line, e, tc.kind, tc.mml, tc.util)
		}
		if e.Explanation == "" || e.Fix == "" || e.Line != tc.line {
			t.Errorf("%s: explanation, fix and line are required: %+v", tc.kind, e)
		}
		if tc.explain != "" && e.Explanation != tc.explain {
			t.Errorf("%s: explanation %q, want %q", tc.kind, e.Explanation, tc.explain)
		}
		if tc.wantText != "" && e.Error() != tc.wantText {
			t.Errorf("%s: Error() = %q, want %q", tc.kind, e.Error(), tc.wantText)
		}
	}
}

// The most specific failure wins over a generic one seen later.
func TestStartupFactsKeepsMostSpecificError(t *testing.T) {
	t.Parallel()
	s := vllm.NewStartupFacts(16)
	for _, l := range []string{
		"INFO # GPU blocks: 100, # CPU blocks: 0",
		"INFO vLLM API server version 0.6.3",
		"ValueError: ... the estimated maximum model length is 1600.",
		"torch.OutOfMemoryError: CUDA out of memory",
	} {
		s.Observe(l)
	}
	got := s.Snapshot()
	if got.KVCacheTokens != 1600 || got.GPUBlocks != 100 || got.Version != "0.6.3" {
		t.Errorf("snapshot = %+v", got)
	}
	var se *vllm.StartupError
	if !errors.As(error(got.Err), &se) || se.Kind != vllm.ErrMaxModelLen || se.SuggestedMaxModelLen != 1600 {
		t.Errorf("error = %+v, want the max model length one", got.Err)
	}
	s.Observe("GPU KV cache size: 2,000 tokens")
	if got := s.Snapshot().KVCacheTokens; got != 2000 {
		t.Errorf("the tokens line should replace blocks × size: got %d", got)
	}
}

// The start-up split: "Model loading took" replaces the earlier "Loading
// weights took" (it includes it), and a warm start says its cache hit.
func TestStartupFactsLoadSplit(t *testing.T) {
	t.Parallel()
	s := vllm.NewStartupFacts(16)
	for _, l := range []string{
		"INFO [default_loader.py:262] Loading weights took 26.93 seconds",
		"INFO [gpu_model_runner.py:2634] Model loading took 7.64 GiB and 32.969258 seconds",
		"INFO [backends.py:215] Directly load the compiled graph(s) for shape None from the cache, took 4.190 s",
		"INFO [monitor.py:34] torch.compile takes 6.02 s in total",
		"INFO [gpu_model_runner.py:3480] Graph capturing finished in 12 secs, took 0.45 GiB",
	} {
		s.Observe(l)
	}
	got := s.Snapshot()
	if got.WeightsS != 32.969258 || got.WeightsGiB != 7.64 || got.CompileS != 6.02 || got.GraphCaptureS != 12 || !got.CompileCacheHit {
		t.Errorf("snapshot = %+v", got)
	}
}

func FuzzRecognize(f *testing.F) {
	for _, s := range []string{"GPU KV cache size: 1,2,3 tokens", "estimated maximum model length is 99999999999999999999",
		"Free memory on device (0/0 GiB) on startup is less than desired GPU memory utilization (0.9, 1 GiB)",
		"Model architectures [] are not supported", "unrecognized arguments: "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fact, err := vllm.Recognize(line)
		if err != nil && (err.Explanation == "" || err.Fix == "") {
			t.Fatalf("error without explanation or fix: %+v", err)
		}
		if fact.Tokens < 0 || fact.GPUBlocks < 0 {
			t.Fatalf("negative count from %q: %+v", line, fact)
		}
	})
}

func BenchmarkRecognize(b *testing.B) {
	b.ReportAllocs()
	lines := []string{
		"(EngineCore_DP0 pid=301) INFO 11-02 [kv_cache_utils.py:1087] GPU KV cache size: 34,952 tokens, Maximum concurrency for 8,192 tokens per request: 4.27x",
		"INFO 01-01 loader.py:1] Loading weights took 3.2 seconds",
	}
	for i := 0; b.Loop(); i++ {
		vllm.Recognize(lines[i%2])
	}
}
