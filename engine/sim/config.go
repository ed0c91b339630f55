package sim

import (
	"time"
)

// Config is one simulated server: the profile plus what vLLM's command line
// sets, the simulator's own knobs and the faults to inject. Zero values take
// the profile's (or vLLM's) defaults in New.
type Config struct {
	// Profile is the simulated card and model; a zero Profile means
	// DefaultProfile.
	Profile Profile
	// Model is the served model id (--model, or --served-model-name).
	Model string
	// MaxModelLen is --max-model-len; 0 means the model's own maximum.
	MaxModelLen int
	// MaxNumSeqs is --max-num-seqs, the most requests running at once.
	MaxNumSeqs int
	// MaxNumBatchedTokens is --max-num-batched-tokens, the token budget of
	// one scheduler step.
	MaxNumBatchedTokens int
	// GPUMemoryUtilization is --gpu-memory-utilization in (0, 1].
	GPUMemoryUtilization float64
	// KVCacheDtype is --kv-cache-dtype ("auto", "fp8", …).
	KVCacheDtype string
	// Quantization is --quantization ("" for none): it changes only the
	// answers (quality.go), not the time model.
	Quantization string
	// TensorParallelSize and PipelineParallelSize are vLLM's
	// --tensor-parallel-size and --pipeline-parallel-size (0 reads as 1):
	// their product of the profile's cards serve (parallel.go).
	TensorParallelSize, PipelineParallelSize int
	// DistributedExecutorBackend is --distributed-executor-backend: "ray"
	// places the world on the stand-in Ray cluster at RayAddress
	// (ray_*.go); anything else keeps it on this profile's cards.
	DistributedExecutorBackend string
	// RayAddress is the stand-in Ray head (host:port) a "ray" backend
	// claims its GPUs from: RAY_ADDRESS or the file the head writes, as
	// cmd/rigbench-sim reads them.
	RayAddress string
	// RayPlacement is the nodes the world was placed on (Serve fills it
	// from the head's answer); when set, the time model adds the network
	// between them (clusterProfile). A pointer keeps Config comparable.
	RayPlacement *[]RayNode
	// Network is the link between a cluster's nodes (--network-gbps,
	// --network-latency-us); zero fields read as DefaultNetwork's.
	Network Network
	// EnablePrefixCaching is --enable-prefix-caching (on by default in
	// vLLM V1; ParseArgs sets it unless --no-enable-prefix-caching).
	EnablePrefixCaching bool
	// APIKey, when set, is required as "Authorization: Bearer KEY" on /v1/*.
	APIKey string
	// Host and Port are where cmd/rigbench-sim listens (vLLM: 0.0.0.0:8000).
	Host string
	Port int
	// Speed divides every simulated duration (≥ 1; +Inf runs unthrottled).
	Speed float64
	// Noise is the relative standard deviation of each step's time (0: every
	// step takes exactly its modelled time). Steps then vary with mean 1, so
	// rates keep their expected value and TrueRate gives it back.
	Noise float64
	// Seed makes output lengths, texts, faults and noise reproducible.
	Seed int64
	// StartupDelay is simulated time during which /health answers 503.
	StartupDelay time.Duration
	// CompileCache is vLLM's cache root (VLLM_CACHE_ROOT, ~/.cache/vllm in
	// the image), "" for none. With one, the simulator imitates vLLM's
	// start-up time: /health answers 503 for the weights load, the
	// compile and the graph capture, and the compile is short when the
	// folder holds a marker of the same configuration, which the first
	// start writes (startup.go). Without one it is ready at once.
	CompileCache string
	// Faults to inject; the zero value injects none.
	Faults Faults
	// Personality is the server the simulator imitates: vLLM (the zero
	// value), llama.cpp's llama-server or SGLang (personality.go).
	Personality Personality
	// Llama holds llama-server's own settings, used by that personality.
	Llama LlamaSettings
	// Speculative is --speculative-config: nil decodes one token per
	// sequence and step, as vLLM without speculation does.
	Speculative *Speculation
}

// Faults are the failures the simulator can inject for reliability tests.
type Faults struct {
	// ExitAfter, when > 0, kills the engine after this much simulated time:
	// open streams break, new requests fail and /health answers 503.
	ExitAfter time.Duration
	// StallAfterTokens, when > 0, stops every stream after this many tokens
	// while keeping the connection open.
	StallAfterTokens int
	// ErrorRate is the fraction of completion requests answered with HTTP 500.
	ErrorRate float64
	// MalformedChunkAfter, when > 0, sends a chunk that is not JSON after
	// this many tokens and ends the stream without [DONE].
	MalformedChunkAfter int
	// CloseIdleRate is the fraction of keep-alive connections the server
	// closes when they fall idle, racing the client's next request on them
	// (llama-server's habit; see ConnState).
	CloseIdleRate float64
}
