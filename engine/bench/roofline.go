package bench

import (
	"slices"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// bytesPerGiB and bytesPerGB turn the roofline's inputs into bytes: vLLM
// logs memory in GiB, bandwidth is quoted in GB/s (10⁹ bytes).
const (
	bytesPerGiB = 1 << 30
	bytesPerGB  = 1e9
)

// RooflinePct is a decode cell's achieved memory bandwidth in percent of
// the card's peak (METHOD.md: Roofline), 0 when it cannot be told (an
// input unknown, or the cell produced no rate).
//
// Every decode step reads the weights once and the KV cache of every
// running sequence, and yields one token per running sequence, so
//
//	steps/s       = total tok/s ÷ B
//	bytes/step    = W + B × (C + M/2) × kv
//	achieved B/s  = steps/s × bytes/step
//	share         = achieved ÷ peak
//
// with B the sequences running at once (N, or the server's mean running
// count when requests queued), W the weights' bytes, kv the KV bytes per
// context token, and C + M/2 a sequence's mean length over the window: its
// prompt of C tokens plus half of the M = max_output tokens it grows by
// before it is replaced (decode requests run to max_output). kv = 0
// (unknown) leaves the KV reads out, so the figure is then a lower bound.
//
// A speculative cell's steps are its own: each sequence-step yields L_eff
// tokens (METHOD.md: Speculative decoding), so steps/s = the cell's
// StepsPerS ÷ B, and the figure stays the engine's share of the bandwidth
// whatever its drafts' luck.
func RooflinePct(r *rundoc.Roofline, plan rundoc.Plan, c *rundoc.Cell) float64 {
	if !r.CompleteFor(c) || c.Phase != rundoc.PhaseDecode || !c.Status.Ran() || c.TotalTokS <= 0 {
		return 0
	}
	running := float64(c.Concurrency)
	if c.Status == rundoc.StatusQueued && c.ServerStats != nil && c.ServerStats.RunningMean > 0 {
		running = min(running, c.ServerStats.RunningMean)
	}
	steps := c.TotalTokS / running
	if c.StepsPerS > 0 {
		steps = c.StepsPerS / running
	}
	meanLen := float64(c.Context) + float64(plan.MaxOutput)/2
	bytes := r.WeightsGiB*bytesPerGiB + running*meanLen*r.KVBytesPerToken
	return 100 * steps * bytes / (r.PeakBandwidthGBs * bytesPerGB)
}

// roofline is the run's Roofline, with the weights from CachedWeightsGiB
// and the KV bytes per token from CachedKVBytesPerToken for model when the
// start-up told none.
func (r *Runner) roofline(model string) *rundoc.Roofline {
	rl := r.Roofline
	if rl == nil {
		return nil
	}
	c := *rl
	if c.WeightsGiB <= 0 && r.CachedWeightsGiB != nil {
		if gib := r.CachedWeightsGiB(model); gib > 0 {
			c.WeightsGiB, c.WeightsSource = gib, rundoc.RooflineHFCache
			c.Missing = slices.DeleteFunc(slices.Clone(c.Missing), func(m string) bool { return m == rundoc.RooflineMissingWeights })
		}
	}
	if c.KVBytesPerToken <= 0 && r.CachedKVBytesPerToken != nil {
		if kv := r.CachedKVBytesPerToken(model); kv > 0 {
			c.KVBytesPerToken, c.KVBytesSource = kv, rundoc.RooflineModelConfig
		}
	}
	return &c
}

// noteUncountedSteps names the step count among the roofline's missing
// inputs when a speculative launch's decode cell ran without the server's
// drafting counters (an older vLLM): that cell has no figure, and every
// output says why (Roofline.Why).
func noteUncountedSteps(r *rundoc.Roofline, c *rundoc.Cell) {
	if r != nil && r.Speculative && c.Status.Ran() && c.StepsPerS <= 0 && !slices.Contains(r.Missing, rundoc.RooflineMissingSteps) {
		r.Missing = append(r.Missing, rundoc.RooflineMissingSteps)
	}
}
