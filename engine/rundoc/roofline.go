package rundoc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/hardware"
)

// Roofline holds what a decode cell's share of the memory-bandwidth
// roofline is computed from (METHOD.md: Roofline): the bytes every decode
// step reads (the weights, and KV bytes per context token) and the card's
// peak bandwidth, each with where it came from. It is recorded with the
// server (ServerFacts) so a re-imported run, or one read back from the
// history, keeps what its figure rests on.
type Roofline struct {
	// WeightsGiB is what the model's weights take on the card: vLLM's
	// "Model loading took X GiB" (RooflineLog), the user's --weights-gib
	// (RooflineUser), the model's files in the Hugging Face cache
	// (RooflineHFCache) or the simulator's profile (RooflineProfile).
	WeightsGiB    float64 `json:"weights_gib,omitempty"`
	WeightsSource string  `json:"weights_source,omitempty"`
	// KVBytesPerToken is the KV cache one context token takes: "Available
	// KV cache memory" ÷ "GPU KV cache size" tokens of the start-up log
	// (RooflineLog), else the model's config (RooflineModelConfig).
	// 0 when unknown: the KV reads are then left out of the figure.
	KVBytesPerToken float64 `json:"kv_bytes_per_token,omitempty"`
	KVBytesSource   string  `json:"kv_bytes_source,omitempty"`
	// PeakBandwidthGBs is the peak memory bandwidth of the cards serving
	// the model, in GB/s: the hardware snapshot's (RooflineHardware) times
	// the tensor-parallel size, or the simulated card's (RooflineProfile).
	PeakBandwidthGBs float64 `json:"peak_bandwidth_gbs,omitempty"`
	BandwidthSource  string  `json:"bandwidth_source,omitempty"`
	// Speculative is set for a launch that decodes speculatively: a
	// cell's figure then rests on its own steps/s, from the server's
	// spec_decode counters (Cell.StepsPerS), and a cell without them has
	// none (CompleteFor).
	Speculative bool `json:"speculative,omitempty"`
	// Missing names the inputs the figure lacks (RooflineMissing…), so
	// every output can say why a run has no roofline figure; empty when
	// it has every input it needs.
	Missing []string `json:"missing,omitempty"`
}

// Inputs Roofline.Missing names.
const (
	// RooflineMissingWeights: the model's size in memory is not known (no
	// start-up log was read, and the user gave none).
	RooflineMissingWeights = "weights"
	// RooflineMissingBandwidth: the card's peak memory bandwidth is not
	// known (no GPU in the snapshot, or it reports no bus width or
	// memory clock).
	RooflineMissingBandwidth = "peak_bandwidth"
	// RooflineMissingSteps: the server decodes speculatively, so a step
	// yields more than one token per sequence and total tok/s does not
	// count the steps; a cell that read the server's spec_decode counters
	// counts them (Cell.StepsPerS, CompleteFor), one whose server has none
	// has no figure.
	RooflineMissingSteps = "decode_steps"
)

// Sources of the Roofline inputs.
const (
	RooflineLog      = "log"
	RooflineUser     = "user"
	RooflineProfile  = "profile"
	RooflineHardware = "hardware"
	// RooflineHFCache: the model's *.safetensors in this machine's
	// Hugging Face cache (an endpoint whose log RigBench never read).
	RooflineHFCache = "hf_cache"
	// RooflineModelConfig: KV bytes per token from the model's
	// config.json in that cache (layers × KV heads × head size × 2 × dtype
	// bytes).
	RooflineModelConfig = "model_config"
)

// Complete reports whether the figure can be computed: weights and peak
// bandwidth known (KV bytes per token may be missing).
func (r *Roofline) Complete() bool {
	return r != nil && r.WeightsGiB > 0 && r.PeakBandwidthGBs > 0 && !slices.Contains(r.Missing, RooflineMissingSteps)
}

// CompleteFor reports whether cell c's figure can be computed: as
// Complete, except that a speculative launch's missing step count is
// there when the cell read the server's drafting counters (StepsPerS).
func (r *Roofline) CompleteFor(c *Cell) bool {
	if r == nil || r.WeightsGiB <= 0 || r.PeakBandwidthGBs <= 0 {
		return false
	}
	if c != nil && c.StepsPerS > 0 {
		return true
	}
	return !r.Speculative && !slices.Contains(r.Missing, RooflineMissingSteps)
}

// Why says in a sentence fragment why a run has no roofline figure ("the
// model's size in memory is not known"), "" when nothing is missing; each
// front end adds how its user gives what is missing.
func (r *Roofline) Why() string {
	if r == nil {
		return "the run was measured before RigBench recorded what the figure rests on"
	}
	var parts []string
	for _, m := range r.Missing {
		switch m {
		case RooflineMissingWeights:
			parts = append(parts, "the model's size in memory is not known (RigBench read no start-up log of this server, and this machine's Hugging Face cache does not hold the model)")
		case RooflineMissingBandwidth:
			parts = append(parts, "the card's peak memory bandwidth is not known (no GPU reported its bus width and memory clock)")
		case RooflineMissingSteps:
			parts = append(parts, "the server decodes speculatively (--speculative-config) and reported no spec_decode counters, so a step yields more than one token per sequence and tok/s does not count the steps")
		}
	}
	return strings.Join(parts, ", and ")
}

// Basis names, for a line under a table of the figure, what it rests on:
// "weights 4.6 GiB, KV 8192 B/token, peak 360 GB/s" (sizes in
// hardware.GiB's words).
func (r *Roofline) Basis() string {
	if r == nil {
		return ""
	}
	s := "weights " + hardware.GiB(uint64(max(r.WeightsGiB, 0)*(1<<30)+0.5))
	if r.KVBytesPerToken > 0 {
		s += fmt.Sprintf(", KV %.0f B/token", r.KVBytesPerToken)
	} else {
		s += ", KV reads not counted"
	}
	s += fmt.Sprintf(", peak %.0f GB/s", r.PeakBandwidthGBs)
	if r.Speculative {
		s += ", steps counted by the server's spec_decode counters"
	}
	return s
}

// FigRoofline is a decode cell's achieved memory bandwidth as a share of
// the card's peak (METHOD.md: Roofline), the "MBU" of inference write-ups.
var FigRoofline = Figure{Key: "roofline_pct", Label: "% of bandwidth", Title: "Roofline %", Unit: "%", Decimals: 0, Better: Higher,
	Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.RooflinePct }}

func (v *validator) roofline(r *Roofline) {
	if r == nil {
		return
	}
	v.num("server.roofline.weights_gib", r.WeightsGiB)
	v.num("server.roofline.kv_bytes_per_token", r.KVBytesPerToken)
	v.num("server.roofline.peak_bandwidth_gbs", r.PeakBandwidthGBs)
	for _, f := range []struct{ name, s string }{{"weights_source", r.WeightsSource}, {"kv_bytes_source", r.KVBytesSource}, {"bandwidth_source", r.BandwidthSource}} {
		switch f.s {
		case "", RooflineLog, RooflineUser, RooflineProfile, RooflineHardware, RooflineHFCache, RooflineModelConfig:
		default:
			v.fail("server.roofline.%s %q is not one of log, user, profile, hardware, hf_cache", f.name, f.s)
		}
	}
	v.count("server.roofline.missing", len(r.Missing), MaxTags)
	for _, m := range r.Missing {
		switch m {
		case RooflineMissingWeights, RooflineMissingBandwidth, RooflineMissingSteps:
		default:
			v.fail("server.roofline.missing %q is not one of weights, peak_bandwidth, decode_steps", m)
		}
	}
}
