package vllm

import "sync"

// StartupFacts gathers what a server's start-up log told. Observe is safe to
// call from the log reader while others read Snapshot.
type StartupFacts struct {
	mu        sync.Mutex
	s         FactsSnapshot
	blockSize int
	// fromBlocks is set while KVCacheTokens was derived from blocks, so a
	// later "KV cache size" line replaces it.
	fromBlocks bool
}

// FactsSnapshot is a copy of what the log told so far.
type FactsSnapshot struct {
	// KVCacheTokens is the KV capacity in tokens: the "KV cache size" line,
	// else GPU blocks × block size. 0 when the log has not said.
	KVCacheTokens int     `json:"kv_cache_tokens,omitempty"`
	GPUBlocks     int     `json:"gpu_blocks,omitempty"`
	KVCacheGiB    float64 `json:"kv_cache_gib,omitempty"`
	// MaxConcurrency requests of ConcurrencyTokens tokens fit at once.
	MaxConcurrency    float64 `json:"max_concurrency,omitempty"`
	ConcurrencyTokens int     `json:"concurrency_tokens,omitempty"`
	Version           string  `json:"version,omitempty"`
	// WeightsGiB and WeightsS are the model's weights in memory and the
	// time to load them ("Model loading took …"); CompileS is
	// torch.compile's total, GraphCaptureS the CUDA graph capture, and
	// CompileCacheHit says the compile cache held this configuration.
	// Zero where the log did not say (an --enforce-eager start compiles
	// and captures nothing).
	WeightsGiB      float64 `json:"weights_gib,omitempty"`
	WeightsS        float64 `json:"weights_s,omitempty"`
	CompileS        float64 `json:"compile_s,omitempty"`
	GraphCaptureS   float64 `json:"graph_capture_s,omitempty"`
	CompileCacheHit bool    `json:"compile_cache_hit,omitempty"`
	// ReadyHint is set once the log said the HTTP server started.
	ReadyHint bool `json:"ready_hint,omitempty"`
	// Err is the most specific fatal error seen, nil when none.
	Err *StartupError `json:"error,omitempty"`
}

// NewStartupFacts starts an empty record. blockSize is the KV block size of
// the launch (0 means vLLM's default of 16), used only with the old
// "# GPU blocks" wording.
func NewStartupFacts(blockSize int) *StartupFacts {
	if blockSize <= 0 {
		blockSize = 16
	}
	return &StartupFacts{blockSize: blockSize}
}

// Observe records one log line and returns the fatal error it reports, if any.
func (s *StartupFacts) Observe(line string) *StartupError {
	f, err := Recognize(line)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.s.Err == nil || err.priority > s.s.Err.priority {
			s.s.Err = err
		}
		return err
	}
	switch f.Kind {
	case FactKVCacheTokens:
		s.s.KVCacheTokens, s.fromBlocks = f.Tokens, false
		if f.MaxConcurrency > 0 {
			s.s.MaxConcurrency, s.s.ConcurrencyTokens = f.MaxConcurrency, f.ConcurrencyTokens
		}
	case FactKVCacheBlocks:
		s.s.GPUBlocks = f.GPUBlocks
		if s.s.KVCacheTokens == 0 || s.fromBlocks {
			s.s.KVCacheTokens, s.fromBlocks = f.GPUBlocks*s.blockSize, true
		}
	case FactMaxConcurrency:
		s.s.MaxConcurrency, s.s.ConcurrencyTokens = f.MaxConcurrency, f.ConcurrencyTokens
	case FactKVCacheMemory:
		s.s.KVCacheGiB = f.GiB
	case FactVersion:
		s.s.Version = f.Version
	case FactModelLoading:
		// "Loading weights took" comes first and "Model loading took" (which
		// includes it) after: the last word counts, its size only if given.
		s.s.WeightsS = f.Seconds
		if f.GiB > 0 {
			s.s.WeightsGiB = f.GiB
		}
	case FactCompile:
		s.s.CompileS = f.Seconds
	case FactCompileCacheHit:
		s.s.CompileCacheHit = true
	case FactGraphCapture:
		s.s.GraphCaptureS = f.Seconds
	case FactReadyHint:
		s.s.ReadyHint = true
	}
	return nil
}

// Snapshot returns a copy of what was recorded.
func (s *StartupFacts) Snapshot() FactsSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s
}
