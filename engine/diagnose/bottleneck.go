package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
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
	// Client: RigBench itself kept this machine's cores busy during the
	// window (CellWindow.ClientCPUPct): the client may set the pace.
	Client Kind = "client"
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
	// ClientBoundPct is RigBench's share of the machine's cores from which
	// a cell is client-bound: with 90% of every core busy parsing streams,
	// the requests wait on the client as much as on the server.
	ClientBoundPct = 90
)

// Bottleneck is one limit of one decode cell and the evidence for it, in
// the run's own figures.
type Bottleneck struct {
	Kind                 Kind
	Context, Concurrency int
	// Evidence is what the run recorded that shows the limit, as a
	// phrase: "waiting 8, running 16 = --max-num-seqs".
	Evidence string
	// Cells, when set, are the cells ("16K×32") a grouped bottleneck of
	// Run stands for; Context and Concurrency are then the first's.
	Cells []string
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
	case Client:
		return "client-bound"
	case Bandwidth:
		return "bandwidth-bound"
	}
	return string(k)
}

// Text is the bottleneck as a line: "16K×32: queue-bound (waiting 16,
// running 16 = --max-num-seqs)".
func (b Bottleneck) Text() string {
	if len(b.Cells) > 0 {
		return fmt.Sprintf("%s: %s (%s)", strings.Join(b.Cells, ", "), b.Kind.Title(), b.Evidence)
	}
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
		add(FrontEnd, "the ramp to steady state took %s s, longer than the %s s window", seconds(c.RampS), seconds(c.MeasuredS))
	} else if e := ttftEvidence(run, c); e != "" {
		add(FrontEnd, "%s", e)
	}
	if c.ClientCPUPct >= ClientBoundPct {
		add(Client, "RigBench used %.0f%% of this machine's CPU during the window: run it on another machine, or lower the concurrency", c.ClientCPUPct)
	}
	if c.RooflinePct >= BandwidthBoundPct {
		add(Bandwidth, "reads %s of the peak memory bandwidth", rundoc.FigRoofline.WithUnit(c))
	}
	return out
}

// FrontEndTTFTMs is the least TTFT that can make a cell front-end-bound:
// below a second a user does not wait on request handling.
const FrontEndTTFTMs = 1000

// ttftEvidence names a TTFT dominated by request handling: at least
// FrontEndTTFTMs and more than three times the longest the server's own
// prompt rate explains, N prompts of C tokens computed one after another
// at the prompt tok/s the run's prefill cell nearest C measured,
//
//	predicted ≤ N × C ÷ prompt tok/s
//
// (the last of N requests sent at once waits for all N prompts; the median
// TTFT waits for fewer). A queued cell's TTFT is the queue's (queue-bound),
// and without a prefill cell nothing predicts it, so neither names this.
func ttftEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	if c.Status == rundoc.StatusQueued || c.TTFTMs < FrontEndTTFTMs {
		return ""
	}
	rate := 0.0
	best := -1
	for _, p := range run.PrefillCells() {
		if p.Status.Ran() && p.PromptTokS > 0 {
			if d := abs(p.Context - c.Context); best < 0 || d < best {
				best, rate = d, p.PromptTokS
			}
		}
	}
	if rate <= 0 {
		return ""
	}
	predicted := 1000 * float64(c.Concurrency*max(c.Context, 1)) / rate
	if c.TTFTMs <= 3*predicted {
		return ""
	}
	return fmt.Sprintf("TTFT %.0f ms, where the server's prompt rate explains at most %.0f ms for %d prompts of %s tokens: request handling, not prefill, took the time",
		c.TTFTMs, predicted, c.Concurrency, rundoc.ContextLabel(c.Context))
}

// seconds is a duration in s with the decimal that tells two apart when
// they round alike ("10.4" against "10"), whole above a minute.
func seconds(s float64) string {
	if s >= 60 {
		return fmt.Sprintf("%.0f", s)
	}
	return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Run returns the first (most binding) limit of every decode cell that ran
// and has one, in the run's cell order, and then one line for the cells
// that did not run because they were over capacity (the matrix shows each;
// the line says what they need).
func Run(run *rundoc.Run) []Bottleneck {
	var out []Bottleneck
	var over *Bottleneck
	for i := range run.Cells {
		c := &run.Cells[i]
		b := Cell(run, c)
		switch {
		case len(b) == 0:
		case c.Status.Ran():
			out = append(out, b[0])
		case b[0].Kind == Capacity && over == nil:
			over = &b[0]
			over.Cells = []string{cellLabel(c)}
			if k := run.Server.KVCapacityTokens; k > 0 {
				over.Evidence = fmt.Sprintf("over capacity: the KV cache holds %s tokens", tokensText(k))
			} else {
				over.Evidence = "over capacity"
			}
		case b[0].Kind == Capacity:
			over.Cells = append(over.Cells, cellLabel(c))
		}
	}
	if over != nil {
		out = append(out, *over)
	}
	return out
}

// cellLabel is "16K×32".
func cellLabel(c *rundoc.Cell) string {
	return rundoc.ContextLabel(c.Context) + "×" + fmt.Sprint(c.Concurrency)
}

// capacityEvidence is why c's KV cache did not hold its requests, "" when
// it did.
func capacityEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	if c.Status == rundoc.StatusOverCapacity {
		k := run.Server.KVCapacityTokens
		switch {
		case k > 0 && run.Plan.MaxOutput > 0:
			n := running(run, c)
			return fmt.Sprintf("needs %d × (%s + %d) = %s tokens of KV cache, the cache holds %s",
				n, rundoc.ContextLabel(c.Context), run.Plan.MaxOutput, tokensText(n*(c.Context+run.Plan.MaxOutput)), tokensText(k))
		case strings.TrimSpace(c.Reason) != "":
			return strings.TrimSpace(c.Reason)
		default:
			return "the run found it " + string(rundoc.StatusOverCapacity)
		}
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
