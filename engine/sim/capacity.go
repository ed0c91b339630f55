package sim

import (
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/vllm"
)

// kvDtypeRatio is vllm.KVDtypeRatio: the simulator sizes its cache by
// the table the advice predicts with.
var kvDtypeRatio = vllm.KVDtypeRatio

func kvDtypeChoices() string {
	q := make([]string, len(vllm.KVCacheDtypes))
	for i, d := range vllm.KVCacheDtypes {
		q[i] = "'" + d.Name + "'"
	}
	return strings.Join(q, ", ")
}

// kvSizing is the outcome of vLLM's memory profiling: how much memory is
// left for the KV cache and how many blocks it holds.
type kvSizing struct {
	availableBytes float64 // util × total − weights − activations − other
	bytesPerToken  float64
	numBlocks      int
	tokens         int // numBlocks × BlockSize: "GPU KV cache size"
}

// sizeKV computes the KV cache the way vLLM does after profiling
// (vllm.Memory, the rule engine/predict predicts with): available =
// gpu_memory_utilization × total − non-KV memory, and the cache is as many
// whole blocks as fit. An fp8 cache halves the bytes per token and
// so doubles the capacity.
func sizeKV(p Profile, util float64, dtype string) (kvSizing, error) {
	ratio, ok := kvDtypeRatio(dtype)
	if !ok {
		return kvSizing{}, fmt.Errorf("api_server.py: error: argument --kv-cache-dtype: invalid choice: '%s' (choose from %s)", dtype, kvDtypeChoices())
	}
	m := vllm.Memory{
		TotalGiB: p.GPUMemoryGiB, Utilization: util,
		WeightsGiB: p.WeightsGiB, ActivationGiB: p.ActivationGiB, OtherGiB: p.OtherGiB,
		KVBytesPerToken: float64(p.KVBytesPerToken) * ratio, BlockSize: p.BlockSize,
	}
	s := kvSizing{availableBytes: m.KVGiB() * giB, bytesPerToken: m.KVBytesPerToken}
	if s.availableBytes <= 0 {
		return s, fmt.Errorf("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.")
	}
	s.numBlocks = m.KVBlocks()
	s.tokens = m.KVTokens()
	return s, nil
}

// checkMaxModelLen fails like vLLM when one request of max_model_len tokens
// would not fit in the KV cache. vLLM's estimate of the longest length that
// fits is a binary search over whole blocks, which equals the KV capacity.
func checkMaxModelLen(s kvSizing, maxModelLen int) error {
	needed := float64(maxModelLen) * s.bytesPerToken
	if maxModelLen <= s.tokens {
		return nil
	}
	return fmt.Errorf("ValueError: To serve at least one request with the model's max seq len (%d), "+
		"(%.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB). "+
		"Based on the available memory, the estimated maximum model length is %d. "+
		"Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
		maxModelLen, needed/giB, s.availableBytes/giB, s.tokens)
}
