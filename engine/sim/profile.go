package sim

import (
	"fmt"
	"math"
	"sort"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Profile describes the simulated card and model: the memory model that
// decides the KV capacity and the time model that decides how long each
// scheduler step takes. All durations are simulated seconds.
//
// Time model of one scheduler step (continuous batching, chunked prefill):
//
//	step = StepBaseS + DecodePerSeqS × B
//	     + B^(DecodeBatchExponent−1) × Σ decoding sequences a(context)
//	     + Σ prefill chunks of n tokens at positions [p, p+n):
//	           PrefillPerTokenS × n + PrefillAttentionS × ((p+n)² − p²)
//	a(C) = DecodePerContextTokenS × C + DecodeContextQuadS × C²
//
// so a whole prompt of C tokens costs PrefillPerTokenS×C + PrefillAttentionS×C²
// (the linear part is the MLP, the quadratic part attention over the growing
// context), and a decode step grows with the batch size B and with the
// context the batch reads from the KV cache. a(C) is what one sequence's
// attention costs; an exponent below 1 says the attention kernel uses the
// GPU better when it has more sequences to spread over its SMs (one long
// sequence leaves most of the card idle). Before a request reaches the
// scheduler it passes the API server (tokenising, hashing the prompt's
// blocks), one request at a time, for apiCost(C) (see APILogTokens); the
// last APIStallShare of that time is the request's intake into the engine,
// during which no step runs (see APIStallShare).
//
// The time model was re-fitted for issue 22, when decode windows began to
// open at steady state and per-request figures to cover whole streams (the
// seed tool's definitions, by which the reference was measured). The old
// fit, made under first-send windows, had a batch exponent of 0.79 to make
// up for the ramp inside the window; without it the batch's attention is
// closer to linear (0.91), and the intake stall explains the published per-request
// rates that lie below the steady rate per stream.
type Profile struct {
	// Name selects the profile (ProfileByName).
	Name string
	// Description is one line for help texts.
	Description string
	// GPUName is what the start-up log calls the card.
	GPUName string
	// VLLMVersion is the imitated vLLM version; /version reports it with a
	// "-sim" suffix so engine detection can tell it is simulated.
	VLLMVersion string
	// Model is the served model when --model is not given.
	Model string
	// ModelMaxLen is the model's max_position_embeddings: the default and
	// the upper bound of --max-model-len.
	ModelMaxLen int

	// GPUMemoryGiB is one card's total memory.
	GPUMemoryGiB float64
	// GPUs is how many such cards the rig has (0 reads as 1); the stand-in
	// nvidia-smi lists each.
	GPUs int
	// Link is how the cards reach each other (LinkPCIe when empty): the
	// cost of tensor parallelism's all-reduces (parallel.go).
	Link Link
	// PeakBandwidthGBs is the card's peak memory bandwidth in GB/s, as
	// hardware.PeakBandwidthGBs derives it from the bus width and memory
	// clock (the data sheet's figure): the roofline a decode cell's
	// RooflinePct is measured against.
	PeakBandwidthGBs float64
	// WeightsGiB, ActivationGiB and OtherGiB are what the model weights, the
	// profiled activation peak and the rest (CUDA graphs, non-torch memory)
	// take out of gpu_memory_utilization × GPUMemoryGiB; the remainder is KV.
	WeightsGiB, ActivationGiB, OtherGiB float64
	// KVBytesPerToken is the KV cache footprint of one token at 16-bit
	// precision (2 × attention layers × KV heads × head size × 2 bytes).
	// 8-bit cache dtypes halve it, 4-bit ones quarter it.
	KVBytesPerToken int
	// BlockSize is tokens per KV block (vLLM: 16).
	BlockSize int

	// DefaultGPUMemoryUtilization, DefaultMaxNumSeqs and
	// DefaultMaxNumBatchedTokens are vLLM's defaults on this card.
	DefaultGPUMemoryUtilization float64
	DefaultMaxNumSeqs           int
	DefaultMaxNumBatchedTokens  int

	// StepBaseS is the fixed cost of one forward pass (weights read once).
	StepBaseS float64
	// DecodePerSeqS is the added cost of each decoding sequence in a step.
	DecodePerSeqS float64
	// DecodePerContextTokenS is the added cost per context token a decoding
	// sequence attends to (reading its KV cache).
	DecodePerContextTokenS float64
	// DecodeContextQuadS is the quadratic part of one sequence's attention
	// cost (long contexts fall out of cache).
	DecodeContextQuadS float64
	// DecodeBatchExponent is q in B^(q−1) scaling the batch's attention
	// cost: 1 is linear in the batch, below 1 is batching efficiency.
	DecodeBatchExponent float64
	// PrefillPerTokenS is the linear cost of each prompt token computed.
	PrefillPerTokenS float64
	// PrefillAttentionS is the quadratic attention cost per token pair.
	PrefillAttentionS float64
	// APIBaseS and APIPerTokenS are the serial API-server cost per request
	// and per prompt token.
	APIBaseS, APIPerTokenS float64
	// APILogS and APILogTokens add a logarithmic term to it, so that one
	// request with a prompt of C tokens costs
	//
	//	APIBaseS + APIPerTokenS × C + APILogS × ln(1 + C/APILogTokens)
	//
	// before the scheduler sees it: each doubling of a long prompt adds
	// about APILogS × ln 2. The term is empirical: the published RTX 3060
	// run's time to first token of a cached prompt jumps from 0.16 s at
	// context 0 (the seed tool's request of 112 tokens) to 1.4 s at 16K
	// and then grows by only a fifth to 64K, a shape no per-token cost
	// gives (docs/simulator.md). APILogS 0 leaves it out.
	APILogS, APILogTokens float64
	// APIStallShare is the share of each request's API-server time, at its
	// end, in which the engine runs no step: the request is being taken
	// into the engine (its prompt's block hashes and the prefix-cache
	// lookup run in the engine's loop between steps), so every running
	// sequence waits. It matters only in a ramp, when requests arrive
	// while others decode: the first streams of 16K × 16 decode in the
	// gaps between the other 15 requests' intake. That is why the
	// published run's per-request rate, taken over whole streams with the
	// ramp, is below its steady rate per stream at long contexts and many
	// streams (16K × 16: 14.6 tok/s against 298.2 / 16 = 18.6), while the
	// two agree at context 0 (intake of a short prompt is brief) and at
	// N = 1 (nothing decodes during the only intake). 0 leaves it out.
	APIStallShare float64
	// LoadSeconds is the simulated model-loading time shown in the log.
	LoadSeconds float64
	// CompileSeconds is torch.compile's time on a start that finds no
	// compiled graphs for its configuration, CompileCachedSeconds on one
	// that loads them from the compile cache, and GraphCaptureSeconds the
	// CUDA graph capture, paid on every start (the cache keeps compiled
	// code, not captured graphs). vLLM documents that a kept cache saves
	// most of the compile time: 45.81 s cold against 4.19 s warm in
	// shared/VLLM.md's sample lines, about 9 %.
	CompileSeconds, CompileCachedSeconds, GraphCaptureSeconds float64
	// NaturalMinTokens and NaturalMaxTokens bound the output length of a
	// request that does not ignore EOS (drawn deterministically per prompt).
	NaturalMinTokens, NaturalMaxTokens int
	// Spec is speculative decoding's cost and acceptance on this card and
	// model (spec.go); the zero value reads as DefaultSpecModel.
	Spec SpecModel
}

// BandwidthFraction is the share of the card's peak bandwidth that one
// stream decoding at context 0 reaches by this profile's time model: such a
// step reads every weight once (the KV of a near-empty context is
// negligible) and lasts StepBaseS + DecodePerSeqS (B = 1, a(0) = 0), so
//
//	fraction = WeightsGiB × 2³⁰ B ÷ (StepBaseS + DecodePerSeqS) ÷ peak B/s
//
// (RTX 3060: 4.95 GB ÷ 20.2 ms ÷ 360 GB/s = 0.68). It is what RigBench's
// roofline figure of a 0×1 cell should read on the simulator, less the
// little a window loses between requests. 0 when the profile has no peak.
func (p Profile) BandwidthFraction() float64 {
	if p.PeakBandwidthGBs <= 0 {
		return 0
	}
	return p.WeightsGiB * giB / (p.StepBaseS + p.DecodePerSeqS) / (p.PeakBandwidthGBs * 1e9)
}

// giB is one gibibyte in bytes.
const giB = 1 << 30

// DefaultProfile imitates shared/reference: an RTX 3060 12 GB serving a 4B
// FP8 hybrid model (few attention layers, hence a large KV capacity:
// 431,632 tokens at gpu_memory_utilization 0.9) with vLLM 0.32.0. Its time
// model is calibrated against the reference CSV (see calibrate_test.go);
// its front end (APIBaseS, APILogS) is set a little below the fit, since a
// client only adds time to a TTFT and the published ones include the seed
// tool's (docs/simulator.md, issue 35).
func DefaultProfile() Profile {
	return Profile{
		Name:                        "rtx3060-12gb",
		Description:                 "RTX 3060 12 GB serving a 4B FP8 model (the reference run)",
		GPUName:                     "NVIDIA GeForce RTX 3060",
		VLLMVersion:                 "0.32.0",
		Model:                       vllm.ModelReference,
		ModelMaxLen:                 262144,
		GPUMemoryGiB:                12,
		PeakBandwidthGBs:            360.048, // 192-bit bus, 7501 MHz (smiCard)
		WeightsGiB:                  4.61,
		ActivationGiB:               2.10,
		OtherGiB:                    0.7968,
		KVBytesPerToken:             8192,
		BlockSize:                   16,
		DefaultGPUMemoryUtilization: 0.9,
		DefaultMaxNumSeqs:           256,
		DefaultMaxNumBatchedTokens:  2048,
		StepBaseS:                   0.01976,
		DecodePerSeqS:               0.000457,
		DecodePerContextTokenS:      0.1264e-6,
		DecodeContextQuadS:          1.061e-13,
		DecodeBatchExponent:         0.913,
		PrefillPerTokenS:            211.8e-6,
		PrefillAttentionS:           0.011526e-6,
		APIBaseS:                    0.0297,
		APILogS:                     0.2820,
		APILogTokens:                195.6,
		APIStallShare:               0.802,
		LoadSeconds:                 38.4,
		CompileSeconds:              41.2,
		CompileCachedSeconds:        3.8,
		GraphCaptureSeconds:         14,
		NaturalMinTokens:            24,
		NaturalMaxTokens:            480,
		Spec:                        DefaultSpecModel(),
	}
}

// h100Profile is a data-centre card with a dense 8B model: a fast demo.
func h100Profile() Profile {
	p := DefaultProfile()
	p.Name = "h100-80gb"
	p.Description = "H100 80 GB serving an 8B BF16 model"
	p.GPUName = "NVIDIA H100 80GB HBM3"
	p.Model = vllm.ModelH100
	p.ModelMaxLen = 131072
	p.GPUMemoryGiB = 79.19
	p.PeakBandwidthGBs = 3352.32 // HBM3, 5120-bit bus, 2619 MHz
	p.WeightsGiB, p.ActivationGiB, p.OtherGiB = 14.99, 4.2, 1.1
	p.KVBytesPerToken = 131072
	p.DefaultMaxNumSeqs = 1024
	p.DefaultMaxNumBatchedTokens = 8192
	p.StepBaseS = 0.0062
	p.DecodePerSeqS = 0.00006
	// Each context token's KV (128 KiB) is read once per step: 39 ns at
	// 3.35 TB/s, 50 ns at the 78% of it that decode reaches.
	p.DecodePerContextTokenS = 0.05e-6
	p.DecodeContextQuadS = 0
	p.DecodeBatchExponent = 1
	p.PrefillPerTokenS = 55e-6
	p.PrefillAttentionS = 0.0006e-6
	p.APIBaseS, p.APIPerTokenS, p.APILogS = 0.01, 1e-6, 0
	p.LoadSeconds = 21.7
	p.CompileSeconds, p.CompileCachedSeconds, p.GraphCaptureSeconds = 45.81, 4.19, 37
	return p
}

// tinyProfile has a very small KV cache (3,264 tokens) and short steps so
// tests reach queueing, eviction and preemption with little work.
func tinyProfile() Profile {
	p := DefaultProfile()
	p.Name = "tiny"
	p.Description = "a tiny card for tests: 3,264 tokens of KV cache"
	p.GPUName = "RigBench Tiny Test Card"
	p.Model = vllm.ModelTiny
	p.ModelMaxLen = 2048
	p.GPUMemoryGiB = 1
	p.PeakBandwidthGBs = 100
	// 0.9 × 1 GiB − 0.8 GiB = 0.1 GiB of KV at 32 KiB per token: 3,264 tokens.
	p.WeightsGiB, p.ActivationGiB, p.OtherGiB = 0.5, 0.2, 0.1
	p.KVBytesPerToken = 1 << 15
	p.DefaultMaxNumSeqs = 64
	p.DefaultMaxNumBatchedTokens = 512
	p.StepBaseS = 0.010
	p.DecodePerSeqS = 0.0005
	p.DecodePerContextTokenS = 0.1e-6
	p.DecodeContextQuadS = 0
	p.DecodeBatchExponent = 1
	p.PrefillPerTokenS = 100e-6
	p.PrefillAttentionS = 0.01e-6
	p.APIBaseS, p.APIPerTokenS, p.APILogS = 0.001, 0, 0
	p.LoadSeconds = 1.2
	p.CompileSeconds, p.CompileCachedSeconds, p.GraphCaptureSeconds = 2, 0.2, 0.5
	return p
}

var profiles = map[string]func() Profile{
	"rtx3060-12gb":    DefaultProfile,
	"rtx3060-12gb-x2": dualRTX3060Profile,
	"h100-80gb":       h100Profile,
	"h100-80gb-x2":    dualH100Profile,
	"tiny":            tinyProfile,
}

// ProfileNames lists the built-in profiles, sorted.
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ProfileByName returns a built-in profile; "" and "default" give
// DefaultProfile.
func ProfileByName(name string) (Profile, error) {
	if name == "" || name == "default" {
		return DefaultProfile(), nil
	}
	f, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("there is no simulator profile %q: use one of %v", name, ProfileNames())
	}
	return f(), nil
}

// Cards is how many GPUs the profile's rig has, at least 1.
func (p *Profile) Cards() int { return max(p.GPUs, 1) }

// apiCost is the API server's time for one request with a prompt of n
// tokens (the formula is at APILogS).
func (p *Profile) apiCost(n int) float64 {
	t := p.APIBaseS + p.APIPerTokenS*float64(n)
	if p.APILogS > 0 && p.APILogTokens > 0 {
		t += p.APILogS * math.Log1p(float64(n)/p.APILogTokens)
	}
	return t
}

// DecodeStepS is the time model's step (see Profile) when b sequences
// decode at context c each and nothing is prefilled:
//
//	step = StepBaseS + DecodePerSeqS × b + b^(q−1) × b × a(c)
//
// engine/predict predicts steady decode rates with it (b ÷ step tok/s), so
// the prediction and the simulator share one time model.
func (p Profile) DecodeStepS(b int, c float64) float64 {
	if b <= 0 {
		return 0
	}
	q := p.DecodeBatchExponent
	if q == 0 {
		q = 1
	}
	f := float64(b)
	return p.StepBaseS + p.DecodePerSeqS*f + p.attention(c)*f*math.Pow(f, q-1)
}

// attention is a(c), one decoding sequence's attention cost at context c.
func (p Profile) attention(c float64) float64 {
	return p.DecodePerContextTokenS*c + p.DecodeContextQuadS*c*c
}

// PrefillS is the time model's compute for a whole cold prompt of c tokens
// in one go: PrefillPerTokenS × c + PrefillAttentionS × c².
func (p Profile) PrefillS(c float64) float64 {
	return p.PrefillPerTokenS*c + p.PrefillAttentionS*c*c
}

// APICostS is the API server's time for one request with a prompt of n
// tokens (the formula is at APILogS).
func (p Profile) APICostS(n int) float64 { return p.apiCost(n) }

// Parallel is p as one server over tp × pp of its cards sees it (memory
// and step model; see parallelProfile).
func Parallel(p Profile, tp, pp int) (Profile, error) { return parallelProfile(p, tp, pp) }
