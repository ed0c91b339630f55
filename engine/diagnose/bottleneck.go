package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// Kind names a limit of a decode cell.
type Kind string

// The limits, in the order a cell's bottlenecks are listed: a hard limit
// (the KV cache, the scheduler's slots) comes before one of the card.
const (
	// Capacity: the KV cache does not hold the requests (over capacity,
	// preemptions, usage near 100%).
	Capacity Kind = "capacity"
	// Queue: requests wait while the server runs as many as it may
	// (--max-num-seqs).
	Queue Kind = "queue"
	// Power: the GPU's clocks were held down by its power cap or by heat
	// during the window (NVML throttle reasons).
	Power Kind = "power"
	// FrontEnd: the cell spent longer reaching steady state than in its
	// window: request handling, not decode, took the time.
	FrontEnd Kind = "front_end"
	// Bandwidth: decode reads the memory near its peak (RooflinePct).
	Bandwidth Kind = "bandwidth"
)

// Thresholds of the evidence (METHOD.md: Diagnosis).
const (
	// BandwidthBoundPct is the share of the roofline from which a cell is
	// bandwidth-bound: well-tuned engines reach about 64–80% on consumer
	// cards in single-stream decode, so 60% is near what the card gives.
	BandwidthBoundPct = 60
	// KVFullShare is the KV cache usage from which a cell is
	// capacity-bound: vLLM preempts requests when it has no free block.
	KVFullShare = 0.95
)

// Bottleneck is one limit of one decode cell and the evidence for it, in
// the run's own figures.
type Bottleneck struct {
	Kind                 Kind
	Context, Concurrency int
	// Evidence is what the run recorded that shows the limit, as a
	// phrase: "waiting 8, running 16 = --max-num-seqs".
	Evidence string
}

// Title is the limit's name as every output prints it.
func (k Kind) Title() string {
	switch k {
	case Capacity:
		return "capacity-bound"
	case Queue:
		return "queue-bound"
	case Power:
		return "power- or thermal-limited"
	case FrontEnd:
		return "front-end-bound"
	case Bandwidth:
		return "bandwidth-bound"
	}
	return string(k)
}

// Text is the bottleneck as a line: "16K×32: queue-bound (waiting 16,
// running 16 = --max-num-seqs)".
func (b Bottleneck) Text() string {
	return fmt.Sprintf("%s×%d: %s (%s)", rundoc.ContextLabel(b.Context), b.Concurrency, b.Kind.Title(), b.Evidence)
}

// Cell returns the limits of a decode cell of run, most binding first;
// none for a prefill cell, or when the run shows no limit.
func Cell(run *rundoc.Run, c *rundoc.Cell) []Bottleneck {
	if c == nil || c.Phase != rundoc.PhaseDecode {
		return nil
	}
	var out []Bottleneck
	add := func(k Kind, format string, a ...any) {
		out = append(out, Bottleneck{Kind: k, Context: c.Context, Concurrency: c.Concurrency, Evidence: fmt.Sprintf(format, a...)})
	}
	if e := capacityEvidence(run, c); e != "" {
		add(Capacity, "%s", e)
	}
	if e := queueEvidence(run, c); e != "" {
		add(Queue, "%s", e)
	}
	if !c.Status.Ran() {
		return out
	}
	if e := throttleEvidence(c.GPUStats); e != "" {
		add(Power, "%s", e)
	}
	if c.RampS > 0 && c.MeasuredS > 0 && c.RampS > c.MeasuredS {
		add(FrontEnd, "the ramp to steady state took %.0f s, longer than the %.0f s window", c.RampS, c.MeasuredS)
	}
	if c.RooflinePct >= BandwidthBoundPct {
		add(Bandwidth, "reads %s of the peak memory bandwidth", rundoc.FigRoofline.WithUnit(c))
	}
	return out
}

// Run returns the first (most binding) limit of every decode cell that has
// one, in the run's cell order.
func Run(run *rundoc.Run) []Bottleneck {
	var out []Bottleneck
	for i := range run.Cells {
		if b := Cell(run, &run.Cells[i]); len(b) > 0 {
			out = append(out, b[0])
		}
	}
	return out
}

// capacityEvidence is why c's KV cache did not hold its requests, "" when
// it did.
func capacityEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	if c.Status == rundoc.StatusOverCapacity {
		k := run.Server.KVCapacityTokens
		if k > 0 && run.Plan.MaxOutput > 0 {
			need := running(run, c) * (c.Context + run.Plan.MaxOutput)
			return fmt.Sprintf("needs %s tokens of KV cache (%d × (%s + %d)), the cache holds %s",
				tokensText(need), running(run, c), rundoc.ContextLabel(c.Context), run.Plan.MaxOutput, tokensText(k))
		}
		return "over capacity: " + strings.TrimSpace(c.Reason)
	}
	s := c.ServerStats
	if s == nil || !c.Status.Ran() {
		return ""
	}
	var parts []string
	if s.Preemptions > 0 {
		parts = append(parts, fmt.Sprintf("%.0f preemptions", s.Preemptions))
	}
	if s.KVUsageMax >= KVFullShare {
		parts = append(parts, fmt.Sprintf("KV cache %s full", rundoc.FigKVUsageMax.WithUnit(c)))
	}
	return strings.Join(parts, ", ")
}

// queueEvidence is how c's requests queued behind the server's slots, ""
// when they did not.
func queueEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	slots := run.Server.Slots
	waiting, runningMax := 0.0, 0.0
	for _, s := range c.ServerSamples {
		waiting, runningMax = max(waiting, s.Waiting), max(runningMax, s.Running)
	}
	if c.ServerStats != nil {
		waiting = max(waiting, c.ServerStats.WaitingMax)
	}
	switch {
	case slots > 0 && c.Concurrency > slots && waiting > 0 && runningMax >= float64(slots):
		return fmt.Sprintf("waiting %.0f, running %.0f = --max-num-seqs", waiting, runningMax)
	case slots > 0 && c.Concurrency > slots && c.Status == rundoc.StatusQueued:
		return fmt.Sprintf("%d requests in flight, %d = --max-num-seqs run at once", c.Concurrency, slots)
	case c.Status == rundoc.StatusQueued && waiting > 0:
		return fmt.Sprintf("waiting %.0f while running %.0f", waiting, runningMax)
	}
	return ""
}

// throttleEvidence names the power or thermal limits NVML reported during
// the window, "" for none.
func throttleEvidence(g *hardware.GPUStats) string {
	if g == nil {
		return ""
	}
	var parts []string
	if slices.Contains(g.Throttled, hardware.ThrottlePowerCap) || slices.Contains(g.Throttled, hardware.ThrottlePowerBrake) {
		parts = append(parts, fmt.Sprintf("clocks held by the power cap at %.0f W mean", g.PowerMeanW))
	}
	if slices.Contains(g.Throttled, hardware.ThrottleThermal) || slices.Contains(g.Throttled, hardware.ThrottleHWSlowdown) {
		parts = append(parts, fmt.Sprintf("thermal slowdown at %.0f °C", g.TempMaxC))
	}
	return strings.Join(parts, ", ")
}

// running is how many of c's requests the server runs at once, as the
// plan check counts them.
func running(run *rundoc.Run, c *rundoc.Cell) int {
	return bench.ServerLimits(run.Server).Running(c.Concurrency)
}

// tokensText is a KV capacity as the advice prints it: thousands as "431K"
// (decimal, as vLLM's log reads 431,632), small counts in full.
func tokensText(n int) string {
	if n >= 10000 {
		return fmt.Sprintf("%dK", n/1000)
	}
	return fmt.Sprint(n)
}
