package session

import (
	"os"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

// Roofline is what a run's roofline figure rests on (METHOD.md: Roofline):
// the weights' size from the server's start-up log, or the user's when
// userWeightsGiB > 0 (an endpoint RigBench did not start, whose log it
// never read); KV bytes per token = "Available KV cache memory" ÷ "GPU KV
// cache size" tokens of the same log; and the peak bandwidth from source.
// What is missing is named in Missing.
func Roofline(log vllm.FactsSnapshot, userWeightsGiB, peakGBs float64, peakSource string) *rundoc.Roofline {
	r := &rundoc.Roofline{}
	switch {
	case userWeightsGiB > 0:
		r.WeightsGiB, r.WeightsSource = userWeightsGiB, rundoc.RooflineUser
	case log.WeightsGiB > 0:
		r.WeightsGiB, r.WeightsSource = log.WeightsGiB, rundoc.RooflineLog
	default:
		r.Missing = append(r.Missing, rundoc.RooflineMissingWeights)
	}
	if log.KVCacheGiB > 0 && log.KVCacheTokens > 0 {
		r.KVBytesPerToken, r.KVBytesSource = log.KVCacheGiB*(1<<30)/float64(log.KVCacheTokens), rundoc.RooflineLog
	}
	if peakGBs > 0 {
		r.PeakBandwidthGBs, r.BandwidthSource = peakGBs, peakSource
	} else {
		r.Missing = append(r.Missing, rundoc.RooflineMissingBandwidth)
	}
	return r
}

// HardwarePeakGBs is the peak memory bandwidth serving a launch: the first
// GPU's (hardware.PeakBandwidthGBs) times the launch's
// --tensor-parallel-size, since each of those GPUs reads its share of the
// weights and KV at once. 0 when the snapshot has no GPU bandwidth.
func HardwarePeakGBs(h *hardware.Snapshot, l *rundoc.Launch) float64 {
	if h == nil || len(h.GPUs) == 0 {
		return 0
	}
	tp := 1
	if l != nil {
		if cfg, err := vllm.FromRecord(*l); err == nil {
			if v, ok := cfg.Get("--tensor-parallel-size"); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 1 {
					tp = n
				}
			}
		}
	}
	return h.GPUs[0].MemoryBandwidthGBs * float64(tp)
}

// runRoofline is the roofline of a session's target: the simulator's
// profile gives the card's bandwidth, a real server the hardware snapshot.
func runRoofline(o Options, doc *rundoc.Run, t target) *rundoc.Roofline {
	var r *rundoc.Roofline
	if o.Kind == Demo {
		r = Roofline(t.startup, 0, o.Sim.Profile.PeakBandwidthGBs, rundoc.RooflineProfile)
	} else {
		r = Roofline(t.startup, o.WeightsGiB, HardwarePeakGBs(doc.Hardware, doc.Launch), rundoc.RooflineHardware)
	}
	r.Speculative = Speculative(doc.Launch)
	return r
}

// Speculative reports whether a launch decodes speculatively
// (--speculative-config set, or the older --speculative-model): a step
// then yields more than one token per
// sequence, so total tok/s ÷ the running sequences over-counts the steps
// the roofline figure needs (METHOD.md: Roofline, Limits).
func Speculative(l *rundoc.Launch) bool {
	if l == nil {
		return false
	}
	cfg, err := vllm.FromRecord(*l)
	if err != nil {
		return false
	}
	v, ok := cfg.Get("--speculative-config")
	v = strings.TrimSpace(v)
	if ok && v != "" && v != "null" && v != "{}" {
		return true
	}
	// vLLM's older spelling: a draft model and how many tokens it drafts.
	// The catalog does not know it, so it is among the launch's extra
	// arguments.
	for i, a := range cfg.Extra {
		name, val, eq := strings.Cut(a, "=")
		if strings.ReplaceAll(name, "_", "-") != "--speculative-model" {
			continue
		}
		if !eq && i+1 < len(cfg.Extra) {
			val = cfg.Extra[i+1]
		}
		if v := strings.TrimSpace(val); v != "" && !strings.HasPrefix(v, "--") {
			return true
		}
	}
	return false
}

// cachedKV reads an endpoint's KV bytes per token from its model's config
// in this machine's Hugging Face cache (nil for a server whose start-up
// log RigBench reads, which says it exactly).
func cachedKV(o Options) func(model string) float64 {
	if o.Kind != Endpoint && o.Kind != "" {
		return nil
	}
	return func(model string) float64 { return HFCacheKVBytesPerToken(model, os.Getenv) }
}

// cachedWeights reads an endpoint's model size from this machine's Hugging
// Face cache when the user gave none (nil otherwise): an endpoint on a
// remote machine will mostly not be found, and then stays unknown.
func cachedWeights(o Options) func(model string) float64 {
	if o.Kind != Endpoint && o.Kind != "" || o.WeightsGiB > 0 {
		return nil
	}
	return func(model string) float64 { return HFCacheWeightsGiB(model, os.Getenv) }
}
