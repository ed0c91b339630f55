package vllm

import "math"

// GiB is one gibibyte in bytes, the unit vLLM's memory log lines use.
const GiB = 1 << 30

// TPOverheadGiB is the memory each card of a multi-card server gives to its
// communication buffers (NCCL and the custom all-reduce) before the KV
// cache is sized.
const TPOverheadGiB = 0.3

// Memory is vLLM's memory budget on the card or cards one server uses: what
// its start-up profiling finds, before the KV cache is sized. Everything is
// in GiB except where a unit is named. The simulator sizes its cache with it
// and engine/predict predicts with it, so the two never disagree on a rule.
type Memory struct {
	// TotalGiB is the memory of every card the server uses, summed.
	TotalGiB float64
	// Utilization is --gpu-memory-utilization: the share of TotalGiB vLLM
	// may take.
	Utilization float64
	// WeightsGiB is the model's weights, once across all cards.
	WeightsGiB float64
	// ActivationGiB is the profiled activation peak (a forward pass of
	// max_num_batched_tokens) and OtherGiB the rest vLLM keeps (CUDA
	// graphs, non-torch memory, communication buffers), summed over cards.
	ActivationGiB, OtherGiB float64
	// KVBytesPerToken is one token's KV at the cache's dtype.
	KVBytesPerToken float64
	// BlockSize is tokens per KV block (16 unless --block-size says).
	BlockSize int
}

// Spread is the budget of one server over cards identical cards (tensor
// times pipeline parallel size): the weights are held once between them,
// every card holds its own activations and other memory plus
// TPOverheadGiB of communication buffers. perCard is the one-card budget.
func Spread(perCard Memory, cards int) Memory {
	if cards <= 1 {
		return perCard
	}
	f := float64(cards)
	m := perCard
	m.TotalGiB *= f
	m.ActivationGiB *= f
	m.OtherGiB = (perCard.OtherGiB + TPOverheadGiB) * f
	return m
}

// KVGiB is what is left for the KV cache, as vLLM computes it after
// profiling: utilization × total − weights − activations − other. It is
// negative when the model does not fit.
func (m Memory) KVGiB() float64 {
	return m.Utilization*m.TotalGiB - m.WeightsGiB - m.ActivationGiB - m.OtherGiB
}

// KVBlocks is how many whole blocks of BlockSize tokens fit the KV memory
// (vLLM's num_gpu_blocks), 0 when none does.
func (m Memory) KVBlocks() int {
	avail := m.KVGiB() * GiB
	if avail <= 0 || m.KVBytesPerToken <= 0 || m.BlockSize <= 0 {
		return 0
	}
	return int(math.Floor(avail / (m.KVBytesPerToken * float64(m.BlockSize))))
}

// KVTokens is the KV cache in tokens, num_gpu_blocks × block size: what
// vLLM logs as "GPU KV cache size".
func (m Memory) KVTokens() int { return m.KVBlocks() * m.BlockSize }
