package sim

import (
	"fmt"
)

// Network is the link between the nodes of a Ray cluster (docs/simulator.md,
// "A cluster of rigs"): what every pipeline hand-off and every all-reduce
// that leaves a node pays.
type Network struct {
	// Gbps is the link's rate in gigabits per second, as a NIC is sold
	// (10 for 10 GbE); 0 reads as DefaultNetwork's.
	Gbps float64
	// LatencyUS is one message's one-way latency in microseconds; 0 reads
	// as DefaultNetwork's.
	LatencyUS float64
}

// DefaultNetwork is a home rig's 10 GbE with 50 µs for one message through
// both kernels' socket paths (NCCL over sockets, not RDMA).
var DefaultNetwork = Network{Gbps: 10, LatencyUS: 50}

// bytesPerS is the link's rate in bytes per second.
func (n Network) bytesPerS() float64 { return n.orDefault().Gbps * 1e9 / 8 }

// latencyS is one message's latency in seconds.
func (n Network) latencyS() float64 { return n.orDefault().LatencyUS * 1e-6 }

func (n Network) orDefault() Network {
	if n.Gbps <= 0 {
		n.Gbps = DefaultNetwork.Gbps
	}
	if n.LatencyUS <= 0 {
		n.LatencyUS = DefaultNetwork.LatencyUS
	}
	return n
}

// The time model's sizes for what crosses the network, the default
// profile's model (hidden 2560, 36 layers, 16-bit activations):
//
//   - a pipeline hand-off sends each token's hidden state once: 2560 × 2 =
//     5,120 bytes per token of the step;
//   - a tensor-parallel group split across nodes all-reduces twice per
//     layer: 72 latency-bound exchanges per step and 368,640 bytes per
//     token (parallel.go's linkCosts, now over the network);
//   - Ray's compiled graph adds rayHandoffS to each hand-off between
//     stages on different nodes (the driver schedules, the channel
//     signals), a modelling assumption of the same order as vLLM's
//     measured per-step overhead of a multi-node pipeline.
const (
	handoffBytesPerToken   = 2560 * 2
	allReduceBytesPerToken = 2560 * 2 * 2 * 36
	allReducesPerStep      = 2 * 36
	rayHandoffS            = 0.0005
)

// crossings counts, for a world of tp × pp ranks placed on nodes (each
// node's GPUs filled in turn, stage s holding ranks s·tp … s·tp+tp−1),
// the pipeline boundaries whose two stages sit on different nodes and the
// stages whose tensor-parallel group spans more than one node.
func crossings(nodes []RayNode, tp, pp int) (ppCross, tpCross int) {
	nodeOf := make([]int, 0, tp*pp)
	for i, n := range nodes {
		for range n.GPUs {
			nodeOf = append(nodeOf, i)
		}
	}
	if len(nodeOf) < tp*pp {
		return 0, 0
	}
	for s := range pp {
		first, last := nodeOf[s*tp], nodeOf[s*tp+tp-1]
		if first != last {
			tpCross++
		}
		if s > 0 && nodeOf[(s-1)*tp+tp-1] != first {
			ppCross++
		}
	}
	return ppCross, tpCross
}

// clusterProfile is p as one server over tp × pp GPUs placed on the
// cluster's nodes sees it: parallelProfile's memory split and in-node
// links, plus the network (net) for every boundary that leaves a node:
//
//	step += ppCross × (latency + rayHandoffS) + tpCross × 72 × latency
//	per token += ppCross × 5,120 B / rate + tpCross × 368,640 B / rate
//
// Pipeline parallelism never speeds a step up here: one batch passes every
// stage in turn, so each GPU idles (pp−1)/pp of every step (the pipeline
// bubble), and the hand-offs add to it. vLLM fills the bubble with several
// batches in flight when enough requests wait; the simulator does not, so
// its multi-node decode is the cautious figure.
func clusterProfile(p Profile, tp, pp int, nodes []RayNode, net Network) (Profile, error) {
	total := 0
	for _, n := range nodes {
		total += n.GPUs
	}
	if tp*pp > total {
		return p, fmt.Errorf("%w (world size %d, %d GPU(s) placed)", ErrRayTooFewGPUs, tp*pp, total)
	}
	p.GPUs = tp * pp
	p, err := parallelProfile(p, tp, pp)
	if err != nil {
		return p, err
	}
	ppCross, tpCross := crossings(nodes, tp, pp)
	bw, lat := net.bytesPerS(), net.latencyS()
	perToken := float64(ppCross)*handoffBytesPerToken/bw + float64(tpCross)*allReduceBytesPerToken/bw
	p.StepBaseS += float64(ppCross)*(lat+rayHandoffS) + float64(tpCross)*allReducesPerStep*lat
	p.DecodePerSeqS += perToken
	p.PrefillPerTokenS += perToken
	return p, nil
}
