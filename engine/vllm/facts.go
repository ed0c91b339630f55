package vllm

import (
	"regexp"
	"strconv"
	"strings"
)

// FactKind names what a start-up log line told.
type FactKind string

// Fact kinds.
const (
	FactNone FactKind = ""
	// FactKVCacheTokens: "GPU KV cache size: N tokens" (Tokens; the newest
	// wording also fills MaxConcurrency and ConcurrencyTokens).
	FactKVCacheTokens FactKind = "kv_cache_tokens"
	// FactKVCacheBlocks: "# GPU blocks: N, # CPU blocks: M" (old engines).
	FactKVCacheBlocks FactKind = "kv_cache_blocks"
	// FactMaxConcurrency: "Maximum concurrency for N tokens per request: Xx".
	FactMaxConcurrency FactKind = "max_concurrency"
	// FactKVCacheMemory: "Available KV cache memory: X GiB".
	FactKVCacheMemory FactKind = "kv_cache_memory"
	// FactVersion: the vLLM version the server reports.
	FactVersion FactKind = "version"
	// FactModelLoading: "Model loading took X GiB and Y seconds" (GiB and
	// Seconds): the weights' size and load time. Older wording "Loading
	// weights took Y seconds" fills Seconds only.
	FactModelLoading FactKind = "model_loading"
	// FactCompile: "torch.compile takes X s in total" (Seconds).
	FactCompile FactKind = "compile"
	// FactCompileCacheHit: "Directly load the compiled graph(s) … from the
	// cache, took X s": the compile cache held this configuration.
	FactCompileCacheHit FactKind = "compile_cache_hit"
	// FactGraphCapture: "Graph capturing finished in X secs" (Seconds).
	FactGraphCapture FactKind = "graph_capture"
	// FactReadyHint: the HTTP server is up ("Application startup complete.").
	// Only a hint: readiness is /health answering 200.
	FactReadyHint FactKind = "ready_hint"
)

// Fact is one thing a start-up log line told about the server.
type Fact struct {
	Kind FactKind `json:"kind"`
	// Tokens is the KV cache size in tokens.
	Tokens int `json:"tokens,omitempty"`
	// GPUBlocks and CPUBlocks are KV-cache blocks (old wording).
	GPUBlocks int `json:"gpu_blocks,omitempty"`
	CPUBlocks int `json:"cpu_blocks,omitempty"`
	// MaxConcurrency requests of ConcurrencyTokens tokens fit at once.
	MaxConcurrency    float64 `json:"max_concurrency,omitempty"`
	ConcurrencyTokens int     `json:"concurrency_tokens,omitempty"`
	// GiB is the KV cache memory.
	GiB     float64 `json:"gib,omitempty"`
	Version string  `json:"version,omitempty"`
	// Seconds is the duration a load, compile or capture line gives.
	Seconds float64 `json:"seconds,omitempty"`
}

// Number patterns: vLLM prints counts with or without thousands separators
// ("36,864" or "36864"); a comma after a number is punctuation, not a digit.
const (
	num = `(\d{1,3}(?:,\d{3})+|\d+)`
	dec = `((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)`
)

var (
	reKVTokens    = regexp.MustCompile(`(?i)KV cache size:\s*` + num + `\s*tokens`)
	reConcurrency = regexp.MustCompile(`(?i)Maximum concurrency for\s*` + num + `\s*tokens per request:\s*` + dec + `\s*x`)
	reBlocks      = regexp.MustCompile(`(?i)#\s*(?:GPU|CUDA)\s*blocks:\s*` + num + `(?:,\s*#\s*CPU\s*blocks:\s*` + num + `)?`)
	reKVMemory    = regexp.MustCompile(`(?i)Available KV cache memory:\s*` + dec + `\s*(GiB|MiB|GB)`)
	reVersion     = regexp.MustCompile(`(?i)(?:vLLM API server version|Initializing (?:a V1 )?(?:an )?LLM engine \(v)\s*v?(\d+\.\d+\.\d+[\w.+-]*)`)
	reModelLoad   = regexp.MustCompile(`(?i)Model loading took\s*` + dec + `\s*(GiB|GB)(?:\s*memory)?\s*and\s*` + dec + `\s*s`)
	reWeightsLoad = regexp.MustCompile(`(?i)Loading weights took\s*` + dec + `\s*s`)
	reCompile     = regexp.MustCompile(`(?i)torch\.compile takes\s*` + dec + `\s*s`)
	reCompileHit  = regexp.MustCompile(`(?i)Directly load the compiled graph.*from the cache`)
	reGraphs      = regexp.MustCompile(`(?i)Graph capturing finished in\s*` + dec + `\s*s`)
	reReady       = regexp.MustCompile(`Application startup complete|Uvicorn running on|Starting vLLM API server`)
)

// recognizeFact matches the informational lines. The KV size line comes
// first: the newest wording carries the concurrency on the same line.
func recognizeFact(line string) Fact {
	// Cheap literal checks first: almost no log line is a fact, and the
	// regular expressions cost microseconds each.
	if !strings.Contains(line, "KV cache") && !strings.Contains(line, "oncurrency") && !strings.Contains(line, "blocks") &&
		!strings.Contains(line, "vLLM") && !strings.Contains(line, "LLM engine") && !strings.Contains(line, "Uvicorn") &&
		!strings.Contains(line, "startup complete") && !strings.Contains(line, " took ") && !strings.Contains(line, " takes ") &&
		!strings.Contains(line, "finished in") {
		return Fact{}
	}
	if m := reKVTokens.FindStringSubmatch(line); m != nil {
		f := Fact{Kind: FactKVCacheTokens, Tokens: atoi(m[1])}
		if c := reConcurrency.FindStringSubmatch(line); c != nil {
			f.ConcurrencyTokens, f.MaxConcurrency = atoi(c[1]), atof(c[2])
		}
		return f
	}
	if c := reConcurrency.FindStringSubmatch(line); c != nil {
		return Fact{Kind: FactMaxConcurrency, ConcurrencyTokens: atoi(c[1]), MaxConcurrency: atof(c[2])}
	}
	if m := reBlocks.FindStringSubmatch(line); m != nil {
		return Fact{Kind: FactKVCacheBlocks, GPUBlocks: atoi(m[1]), CPUBlocks: atoi(m[2])}
	}
	if m := reKVMemory.FindStringSubmatch(line); m != nil {
		gib := atof(m[1])
		switch m[2] {
		case "MiB":
			gib /= 1024
		case "GB":
			gib = gib * 1e9 / (1 << 30)
		}
		return Fact{Kind: FactKVCacheMemory, GiB: gib}
	}
	if m := reModelLoad.FindStringSubmatch(line); m != nil {
		gib := atof(m[1])
		if strings.EqualFold(m[2], "GB") {
			gib = gib * 1e9 / (1 << 30)
		}
		return Fact{Kind: FactModelLoading, GiB: gib, Seconds: atof(m[3])}
	}
	if m := reWeightsLoad.FindStringSubmatch(line); m != nil {
		return Fact{Kind: FactModelLoading, Seconds: atof(m[1])}
	}
	if m := reCompile.FindStringSubmatch(line); m != nil {
		return Fact{Kind: FactCompile, Seconds: atof(m[1])}
	}
	if reCompileHit.MatchString(line) {
		return Fact{Kind: FactCompileCacheHit}
	}
	if m := reGraphs.FindStringSubmatch(line); m != nil {
		return Fact{Kind: FactGraphCapture, Seconds: atof(m[1])}
	}
	if m := reVersion.FindStringSubmatch(line); m != nil {
		return Fact{Kind: FactVersion, Version: strings.TrimRight(m[1], ".)")}
	}
	if reReady.MatchString(line) {
		return Fact{Kind: FactReadyHint}
	}
	return Fact{}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

func atof(s string) float64 {
	x, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return x
}
