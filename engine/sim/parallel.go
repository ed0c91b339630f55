package sim

import (
	"fmt"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Link is how a profile's GPUs reach each other, as `nvidia-smi topo -m`
// names it: the cost of every all-reduce tensor parallelism makes.
type Link string

// Links the simulator models.
const (
	// LinkPCIe: through the PCIe host bridge (PHB), as two consumer cards
	// in one desktop are.
	LinkPCIe Link = "PCIe"
	// LinkNVLink: an NVLink bridge or switch between the cards.
	LinkNVLink Link = "NVLink"
)

// linkCost is the time tensor parallelism adds to one step over a link:
// stepS for the step's all-reduces (two per layer, each a latency-bound
// exchange at decode's small sizes) and perTokenS for each token of the
// step (the activations every layer sums across cards). docs/simulator.md
// ("Tensor parallelism") gives where the figures come from.
type linkCost struct{ stepS, perTokenS float64 }

var linkCosts = map[Link]linkCost{
	// 368 KB of activations per token (hidden 2560 × 2 bytes × 2
	// all-reduces × 36 layers) at about 50 GB/s: 7 µs.
	LinkNVLink: {stepS: 0.0018, perTokenS: 7e-6},
	// The same 368 KB at about 25 GB/s of PCIe 4.0 x16: 15 µs; the step's
	// all-reduces 3 ms more than NVLink's, so that 2×PCIe decodes one
	// stream at 1/1.25 of 2×NVLink's rate, as published.
	LinkPCIe: {stepS: 0.0048, perTokenS: 15e-6},
}

// tpOverheadGiB is vllm.TPOverheadGiB, the communication buffers of each
// card of a multi-card server.
const tpOverheadGiB = vllm.TPOverheadGiB

// ppStageS is the time one pipeline stage boundary adds to a step (the
// activations handed to the next card).
const ppStageS = 0.0002

// parallelSize is the tensor- and pipeline-parallel sizes of cfg, each at
// least 1.
func parallelSize(cfg Config) (tp, pp int) {
	return max(cfg.TensorParallelSize, 1), max(cfg.PipelineParallelSize, 1)
}

// parallelProfile is p as one server spread over tp × pp of its cards
// sees it, so the KV sizing and the step model stay the ones of one card:
//
//   - memory: n = tp × pp cards hold the weights once between them, and
//     each its own activations, other memory and communication buffers,
//     so the KV cache gets n × (util × M − A − O − overhead) − W, more
//     than n times one card's whenever the weights took room there;
//   - tensor parallelism divides each step's work (weights read, KV read,
//     prefill compute) by tp and adds the link's all-reduces (linkCost):
//     step = step₁ / tp + stepS + perTokenS × tokens;
//   - pipeline parallelism splits the layers without speeding a step up
//     (one batch passes every stage in turn): it adds ppStageS per
//     boundary.
//
// It refuses more cards than the profile has, as vLLM's executor does.
func parallelProfile(p Profile, tp, pp int) (Profile, error) {
	n := tp * pp
	if n > p.Cards() {
		return p, fmt.Errorf("ValueError: World size (%d) is larger than the number of available GPUs (%d) in this node. "+
			"Lower --tensor-parallel-size or --pipeline-parallel-size.", n, p.Cards())
	}
	if n == 1 {
		return p, nil
	}
	m := vllm.Spread(vllm.Memory{TotalGiB: p.GPUMemoryGiB, ActivationGiB: p.ActivationGiB, OtherGiB: p.OtherGiB}, n)
	p.GPUMemoryGiB, p.ActivationGiB, p.OtherGiB = m.TotalGiB, m.ActivationGiB, m.OtherGiB
	if tp > 1 {
		link := linkCosts[p.Link]
		if p.Link == "" {
			link = linkCosts[LinkPCIe]
		}
		t := float64(tp)
		p.StepBaseS = p.StepBaseS/t + link.stepS
		p.DecodePerSeqS = p.DecodePerSeqS/t + link.perTokenS
		p.DecodePerContextTokenS /= t
		p.DecodeContextQuadS /= t
		p.PrefillPerTokenS = p.PrefillPerTokenS/t + link.perTokenS
		p.PrefillAttentionS /= t
	}
	p.StepBaseS += ppStageS * float64(pp-1)
	return p, nil
}

// dualRTX3060Profile is two of the default profile's RTX 3060 12 GB in one
// desktop, reaching each other through the PCIe host bridge (the 3060 has
// no NVLink connector).
func dualRTX3060Profile() Profile {
	p := DefaultProfile()
	p.Name = "rtx3060-12gb-x2"
	p.Description = "two RTX 3060 12 GB over PCIe serving the default 4B FP8 model"
	p.GPUs, p.Link = 2, LinkPCIe
	return p
}

// dualH100Profile is two of the h100-80gb profile's cards joined by
// NVLink.
func dualH100Profile() Profile {
	p := h100Profile()
	p.Name = "h100-80gb-x2"
	p.Description = "two H100 80 GB over NVLink serving an 8B BF16 model"
	p.GPUs, p.Link = 2, LinkNVLink
	return p
}
