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
	// (vLLM's --max-num-seqs, llama-server's -np, SGLang's
	// --max-running-requests: SlotsSetting).
	Queue Kind = "queue"
	// Power: the GPU's clocks were held down by its power cap or by heat
	// during the window (NVML throttle reasons).
	Power Kind = "power"
	// FrontEnd: the cell's streams waited for their first tokens far
	// longer than the prefill of their prompts explains: request handling
	// (tokenising, scheduling, the API server), not prefill or decode,
	// took the time.
	FrontEnd Kind = "front_end"
	// Client: RigBench itself kept this machine's cores busy during the
	// window (CellWindow.ClientCPUPct): the client may set the pace.
	Client Kind = "client"
	// Drafting: a speculative launch's first drafted token is mostly
	// rejected (below PoorAcceptRate), or the server proposed no draft:
	// the steps spent drafting and verifying buy little, whatever the
	// bandwidth.
	Drafting Kind = "drafting"
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
	// the requests wait on the client as much as on the server. It is
	// rundoc.ClientBehindPct, from which a cell is Unreliable, so a cell
	// measured now never reaches this diagnosis; runs recorded before
	// Unreliable was a status still do.
	ClientBoundPct = rundoc.ClientBehindPct
	// PoorAcceptRate is the share of first drafted tokens (draft position
	// 1) accepted below which a speculative cell drafts poorly. Later
	// positions are accepted only after it, and less often, so with p₁ <
	// ½ a drafted step's expected accepted tokens Σᵢ Πⱼ≤ᵢ pⱼ stay below
	// p₁ / (1 − p₁) < 1: a step yields under 2 tokens however many it
	// drafts (k + 1 verified). The overall acceptance rate would not do:
	// it falls with k by construction, so a long draft that still pays
	// would read as poor.
	PoorAcceptRate = 0.5
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
	case Drafting:
		return "drafts poorly"
	case Bandwidth:
		return "bandwidth-bound"
	case Network:
		return "network-bound"
	}
	return string(k)
}

// Text is the bottleneck as a line: "16K×32: queue-bound (waiting 16,
// running 16 = --max-num-seqs)".
func (b Bottleneck) Text() string {
	if len(b.Cells) > 0 {
		return fmt.Sprintf("%s: %s (%s)", strings.Join(b.Cells, ", "), b.Kind.Title(), b.Evidence)
	}
	return fmt.Sprintf("%s: %s (%s)", rundoc.CellName(b.Context, b.Concurrency), b.Kind.Title(), b.Evidence)
}

// Cell returns the limits of a decode cell of run, most binding first;
// none for a prefill cell, an Unreliable one (its own evidence contradicts
// its figures, so they diagnose nothing), or when the run shows no limit.
func Cell(run *rundoc.Run, c *rundoc.Cell) []Bottleneck {
	if c == nil || c.Phase != rundoc.PhaseDecode || c.Status == rundoc.StatusUnreliable {
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
	if e := frontEndEvidence(run, c); e != "" {
		add(FrontEnd, "%s", e)
	}
	if c.ClientCPUPct >= ClientBoundPct {
		add(Client, "RigBench used %.0f%% of this machine's CPU during the window: run it on another machine, or lower the concurrency", c.ClientCPUPct)
	}
	if e := draftingEvidence(c); e != "" {
		add(Drafting, "%s", e)
	}
	if e := networkEvidence(run, c); e != "" {
		add(Network, "%s", e)
	}
	if c.RooflinePct >= BandwidthBoundPct {
		add(Bandwidth, "reads %s of the peak memory bandwidth", rundoc.FigRoofline.WithUnit(c))
	}
	return out
}

// FrontEndTTFTMs is the least first-token time that can make a cell
// front-end-bound: below a second a user does not wait on request
// handling.
const FrontEndTTFTMs = 1000

// FrontEndFactor is how many times the longest first-token time the
// prefill of the cell's prompts explains a cell's must exceed to be
// front-end-bound: the prediction is already the worst case (every prompt
// computed in full, one after another), so a first token three times later
// than that is not prefill under any caching or batching.
const FrontEndFactor = 3

// frontEndEvidence names a ramp that request handling, not prefill, made
// long (METHOD.md: Diagnosis). The ramp to steady state is, in order, the
// streams' wait for their first tokens, at most one readiness check
// (rundoc.SteadyCheck) for the server's gauges to agree, and the hold
// (rundoc.SteadyHold) by construction. Only the first part can be prefill
// or front end, and the cell's TTFT quantiles measure it per request, to
// the millisecond, whatever the window's length: the last stream's first
// token is TTFT p99 (at N ≤ 100 the longest of the N first sends; the
// median where a run recorded no p99). The window is no part of it: a
// ramp longer than a short window is still the same ramp.
//
// The prefill of the N prompts, computed one after another at the
// server's own prompt rate R (the run's prefill cell nearest C:
// server_prompt_tok_s where the server reports its prefill time, else
// prompt_tok_s), takes at most
//
//	predicted = N × P ÷ R
//
// with P the cell's prompt tokens (C where it recorded none; context 0's
// prompt is the request alone), as the last of N requests sent at once
// waits for all N prompts (a shared, cached prompt takes less). The cell
// is front-end-bound when its first tokens took at least FrontEndTTFTMs
// and more than FrontEndFactor × predicted. A queued cell's first tokens
// wait for the queue (queue-bound), and without a prefill cell nothing
// predicts them, so neither names this.
func frontEndEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	if c.Status == rundoc.StatusQueued {
		return ""
	}
	first, name := c.TTFTP99Ms, "TTFT p99"
	if first <= 0 {
		first, name = c.TTFTMs, "TTFT"
	}
	if first < FrontEndTTFTMs {
		return ""
	}
	rate, at := promptRate(run, c.Context)
	if rate <= 0 {
		return ""
	}
	prompt := c.PromptTokens
	if prompt <= 0 {
		prompt = max(c.Context, 1)
	}
	predicted := 1000 * float64(c.Concurrency*prompt) / rate
	if first <= FrontEndFactor*predicted {
		return ""
	}
	tokens := "tokens"
	if prompt == 1 {
		tokens = "token"
	}
	return fmt.Sprintf("%s %.0f ms, where the server's prompt rate (%.0f tok/s at %s) explains at most %.0f ms for %d prompts of %s %s: request handling, not prefill, took the time",
		name, first, rate, rundoc.ContextLabel(at), predicted, c.Concurrency, rundoc.ContextLabel(prompt), tokens)
}

// promptRate is the server's own prompt rate near context: that of the
// run's prefill cell (of those that ran) whose context is nearest, its
// server_prompt_tok_s where the server reported its prefill time (the
// prefill alone), else its prompt_tok_s (prompt tokens ÷ TTFT, request
// handling included), and the context it was measured at; 0 without
// such a cell.
func promptRate(run *rundoc.Run, context int) (rate float64, at int) {
	best := -1
	for _, p := range run.PrefillCells() {
		r := p.ServerPromptTokS
		if r <= 0 {
			r = p.PromptTokS
		}
		if !p.Status.Ran() || r <= 0 {
			continue
		}
		if d := abs(p.Context - context); best < 0 || d < best {
			best, rate, at = d, r, p.Context
		}
	}
	return rate, at
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
			over.Cells = []string{c.Name()}
			if k := run.Server.KVCapacityTokens; k > 0 {
				over.Evidence = "over capacity: the KV cache holds " + rundoc.TokensText(k)
			} else {
				over.Evidence = "over capacity"
			}
		case b[0].Kind == Capacity:
			over.Cells = append(over.Cells, c.Name())
		}
	}
	if over != nil {
		out = append(out, *over)
	}
	return out
}

// capacityEvidence is why c's KV cache did not hold its requests, "" when
// it did.
func capacityEvidence(run *rundoc.Run, c *rundoc.Cell) string {
	if c.Status == rundoc.StatusOverCapacity && !bench.CapacityVerdict(*c, run.Cells) {
		return "" // a silent window read as capacity by older runs: no evidence of it
	}
	if c.Status == rundoc.StatusOverCapacity {
		k := run.Server.KVCapacityTokens
		switch {
		case k > 0 && run.Plan.MaxOutput > 0:
			n := running(run, c)
			return fmt.Sprintf("needs %d × (%s + %d) = %s of KV cache, the cache holds %s",
				n, rundoc.ContextLabel(c.Context), run.Plan.MaxOutput, rundoc.TokensText(n*(c.Context+run.Plan.MaxOutput)), rundoc.TokensText(k))
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
	setting := SlotsSetting(run.Server.Personality)
	switch {
	case slots > 0 && c.Concurrency > slots && waiting > 0 && runningMax >= float64(slots):
		return fmt.Sprintf("waiting %.0f, running %.0f = %s", waiting, runningMax, setting)
	case slots > 0 && c.Concurrency > slots && c.Status == rundoc.StatusQueued:
		return fmt.Sprintf("%d requests in flight, %d = %s run at once", c.Concurrency, slots, setting)
	case c.Status == rundoc.StatusQueued && waiting > 0:
		return fmt.Sprintf("waiting %.0f while running %.0f", waiting, runningMax)
	}
	return ""
}

// SlotsSetting is the server's own name for the setting that caps how
// many requests it runs at once (rundoc.ServerFacts.Slots), as its users
// type it: llama-server's -np/--parallel, SGLang's
// --max-running-requests, vLLM's --max-num-seqs (also for runs that did
// not record the personality, all of them vLLM's).
func SlotsSetting(personality string) string {
	switch personality {
	case "llama-server":
		return "-np/--parallel"
	case "sglang":
		return "--max-running-requests"
	}
	return "--max-num-seqs"
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

// draftingEvidence names a speculative cell that drafts poorly
// (PoorAcceptRate): "accepted 32.0% of its first drafted tokens, 1.41
// tokens per step", or a server that counted drafts and proposed none in
// the window; "" otherwise.
func draftingEvidence(c *rundoc.Cell) string {
	switch {
	case !c.Speculative():
		return ""
	case c.SpecOutputTokens > 0 && c.SpecDrafts == 0:
		return "proposed no draft in the window (an n-gram drafter finds nothing to copy in a prompt that does not repeat itself)"
	case len(c.SpecPosAccept) > 0 && c.SpecPosAccept[0] < PoorAcceptRate:
		return fmt.Sprintf("accepted %s%% of its first drafted tokens, %s tokens per step",
			rundoc.FigSpecAcceptRate.Format(100*c.SpecPosAccept[0]), rundoc.FigSpecAcceptLength.Text(c))
	}
	return ""
}
