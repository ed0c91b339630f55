package diagnose

import (
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Network: a cluster's decode step spends much of its time handing the
// pipeline's activations between rigs over the measured link.
const Network Kind = "network"

// NetworkBoundShare is the share of a decode step from which the per-step
// transfer the measured link implies makes a cell network-bound: at a
// quarter of the step, a link twice as fast would give the cell at least
// an eighth more tokens a second, more than a run's noise.
const NetworkBoundShare = 0.25

// activationBytes is the size of one activation value a pipeline hand-off
// sends: vLLM's 16-bit (BF16/FP16) hidden states.
const activationBytes = 2

// NetworkTransfer is the time one decode step of a cluster run spends on
// the network by the measured link, and what it rests on. With P pipeline
// stages one on each rig, a decode step hands each running stream's
// hidden state (hidden size × 2 bytes) across each of the P − 1 stage
// boundaries, and the sampled tokens return from the last stage to the
// first: P one-way latencies (half the measured round trip) and P − 1
// transfers of tokens × hidden × 2 bytes at the measured rate. It is a
// lower bound: Ray's scheduling of each hand-off and a pipeline's
// bubbles come on top.
type NetworkTransfer struct {
	// StepS is the cell's decode step (one token for every running
	// stream: 1 ÷ the per-request rate); TransferS the network's part.
	StepS, TransferS float64
	// Tokens is the streams a step carries; Bytes one hand-off's size.
	Tokens, Bytes int
	// Hops are the stage boundaries crossed (P − 1).
	Hops int
	// Link is the measured link.
	Link *rundoc.ClusterLink
}

// Share is the network's part of the step.
func (n NetworkTransfer) Share() float64 { return n.TransferS / n.StepS }

// Transfer is a decode cell's network time, false where the run is no
// cluster over a pipeline, has no measured link or hidden size, or the
// cell no per-request rate.
func Transfer(run *rundoc.Run, c *rundoc.Cell) (NetworkTransfer, bool) {
	if run == nil || run.Launch == nil || run.Launch.Cluster == nil || c == nil || c.PerRequestTokS <= 0 {
		return NetworkTransfer{}, false
	}
	cl := run.Launch.Cluster
	if cl.PP < 2 || cl.Link == nil || cl.Link.Gbps <= 0 || cl.HiddenSize <= 0 {
		return NetworkTransfer{}, false
	}
	tokens := running(run, c)
	if tokens <= 0 {
		tokens = c.Concurrency
	}
	n := NetworkTransfer{StepS: 1 / c.PerRequestTokS, Tokens: tokens, Bytes: tokens * cl.HiddenSize * activationBytes,
		Hops: cl.PP - 1, Link: cl.Link}
	n.TransferS = float64(n.Hops)*float64(n.Bytes)*8/(cl.Link.Gbps*1e9) + float64(cl.PP)*cl.Link.RTTUS/2*1e-6
	return n, true
}

// networkEvidence names a cell whose per-step transfer is at least
// NetworkBoundShare of its decode step: "hand-offs of 40 KB over 1 Gb/s,
// 400 µs take 1.5 ms of a 4.0 ms step (38%)"; "" otherwise.
func networkEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	n, ok := Transfer(run, c)
	if !ok || n.Share() < NetworkBoundShare {
		return ""
	}
	return fmt.Sprintf("%d pipeline hand-off(s) a step of %s each over the measured link (%s) take %.2f ms of a %.2f ms decode step (%.0f%%)",
		n.Hops, bytesText(n.Bytes), n.Link.Text(), n.TransferS*1e3, n.StepS*1e3, 100*n.Share())
}

// bytesText is a size in KB or MB (decimal, as link rates are).
func bytesText(b int) string {
	if b >= 1e6 {
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%.1f KB", float64(b)/1e3)
}

// networkNote is the advice for network-bound cells: what moves the
// per-step transfer. Fewer pipeline stages send fewer hand-offs (more
// GPUs in fewer rigs, tensor parallelism inside each); a faster link
// divides both terms.
func networkNote(run *rundoc.Run) (Advice, bool) {
	cells := cellsWith(run, Network)
	if len(cells) == 0 {
		return Advice{}, false
	}
	return Advice{Moves: Network, Note: cellList(cells) + " network-bound: the hand-offs between the rigs take a large share of each decode step; " +
		"fewer pipeline stages (fewer rigs, with tensor parallelism over more GPUs inside each) or a faster link (a 25 or 100 GbE card, a direct cable between the rigs, --interface on it) move " +
		pick(len(cells) == 1, "it", "them")}, true
}
