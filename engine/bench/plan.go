package bench

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Limits are the server's facts a plan check uses (METHOD.md: Decode cells,
// step 1); 0 means unknown.
type Limits struct {
	// MaxModelLen is the most tokens (prompt + output) one request may
	// hold.
	MaxModelLen int
	// KVCapacity is K, the tokens the server's KV cache holds.
	KVCapacity int
	// Slots is how many requests the server runs at once: llama-server's
	// total_slots, vLLM's --max-num-seqs where RigBench knows the launch.
	// The rest wait, holding no KV.
	Slots int
	// SlotCache is true where each slot keeps a prompt cache of its own
	// (llama-server): a document every stream sends is computed once per
	// slot it lands on, not once for all as with vLLM's shared blocks.
	SlotCache bool
}

// ServerLimits are the limits a run's server reported.
func ServerLimits(s rundoc.Server) Limits {
	return Limits{MaxModelLen: s.MaxModelLen, KVCapacity: s.KVCapacityTokens, Slots: s.Slots,
		SlotCache: s.Personality == "llama-server"}
}

// Running is how many of n requests in flight the server runs at once:
// all of them, or its slots.
func (l Limits) Running(n int) int {
	if l.Slots > 0 {
		return min(n, l.Slots)
	}
	return n
}

// Queued reports whether n requests in flight are more than the server
// runs at once, so a cell of concurrency n is Requests queued by
// construction (issue 30 item 1: 8 requests on 4 slots ran queued in every
// real run).
func (l Limits) Queued(n int) bool { return l.Slots > 0 && n > l.Slots }

// DecodeStatus returns the status a decode cell gets before it runs (METHOD.md:
// Decode cells, step 1), or "" when it will run. It is the cell-level rule
// from limits; engine/session's Predict and Estimate apply it and
// PlanDuration to a whole plan and a server's Facts, and are what front ends
// call (issue 42 item 8: the two layers had the same names). The KV cache holds the
// requests the server runs at once, min(N, slots) × (C + M); K = 0 means
// unknown: then nothing is predicted over capacity and runtime detection
// decides.
func DecodeStatus(context, concurrency, maxOutput int, l Limits) rundoc.Status {
	if l.MaxModelLen > 0 && context+maxOutput > l.MaxModelLen {
		return rundoc.StatusExceedsLength
	}
	if l.KVCapacity > 0 && l.Running(concurrency)*(context+maxOutput) > l.KVCapacity {
		return rundoc.StatusOverCapacity
	}
	return ""
}

// PrefillStatus is DecodeStatus for a prefill cell: a prompt of C tokens plus
// the one generated token must fit the model length and the KV cache.
func PrefillStatus(context int, l Limits) rundoc.Status {
	if l.MaxModelLen > 0 && context+1 > l.MaxModelLen {
		return rundoc.StatusExceedsLength
	}
	if l.KVCapacity > 0 && context+1 > l.KVCapacity {
		return rundoc.StatusOverCapacity
	}
	return ""
}

// AssumedPrefillRate is the prompt tok/s at short contexts used for
// estimates before any prefill was measured: a mid-range consumer card on
// a small model. Longer contexts are slower by prefillShape.
const AssumedPrefillRate = 2000.0

// prefillShape is k in time per prompt token ∝ 1 + k·C: each token's
// attention reads every token before it, so the cost per token grows
// linearly with the context C. The published RTX 3060 run fits
// 1/rate = 3.45e-4 + 1.0e-8·C s/token from 8K to 128K within 2%, k =
// 1/34000: the attention part equals the rest at about 34K tokens.
const prefillShape = 1.0 / 34000

// PrefillRate estimates prompt tok/s at a context from measured prefill
// cells. Between two measured contexts it interpolates linearly in
// log(context). Beyond the largest it extends the straight line through the
// last two points in (C, 1/rate), the linear growth of the cost per token;
// below the smallest, or beyond with a single point, it scales the nearest
// point by prefillShape. Holding the end value instead would promise a
// 248K prompt at the 128K rate, and an ETA several times too short. With no
// measured cells it is AssumedPrefillRate scaled by prefillShape.
func PrefillRate(cells []rundoc.Cell, context int) float64 {
	type pt struct{ c, r float64 }
	var pts []pt
	for _, c := range cells {
		if c.Phase == rundoc.PhasePrefill && c.PromptTokS > 0 {
			pts = append(pts, pt{float64(max(c.Context, 1)), c.PromptTokS})
		}
	}
	x := float64(max(context, 1))
	shaped := func(p pt) float64 { return p.r * (1 + prefillShape*p.c) / (1 + prefillShape*x) }
	if len(pts) == 0 {
		return shaped(pt{0, AssumedPrefillRate})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].c < pts[j].c })
	if x <= pts[0].c {
		return shaped(pts[0])
	}
	for i := 1; i < len(pts); i++ {
		if x <= pts[i].c {
			a, b := pts[i-1], pts[i]
			f := (math.Log(x) - math.Log(a.c)) / (math.Log(b.c) - math.Log(a.c))
			return a.r + f*(b.r-a.r)
		}
	}
	last := pts[len(pts)-1]
	if len(pts) >= 2 {
		prev := pts[len(pts)-2]
		if slope := (1/last.r - 1/prev.r) / (last.c - prev.c); slope > 0 && last.c > prev.c {
			return 1 / (1/last.r + slope*(x-last.c))
		}
	}
	return shaped(last)
}

// PlanDuration returns the expected duration of the cells of a resolved plan
// that will run (METHOD.md: Order and time): per runnable decode cell the
// expected window (D, or for adaptive windows ExpectedWindow) plus the
// warm-up prefill of its prompts, plus each prefill cell times its
// expected repetitions, with prompt tok/s from the measured cells
// (PrefillRate). An adaptive plan's warm-ups prefill only what the server
// does not hold yet (reuse.go).
func PlanDuration(p rundoc.Plan, l Limits, measured []rundoc.Cell) time.Duration {
	return estimateSpecs(p, cellSpecs(p), 0, l, measured)
}

// A cell with more requests than slots (Limits.Queued) never reaches steady
// state while its waiting requests outlast the ramp, so its ramp is the
// warm-up limit (rampFor); under the shared policy on a server whose slots
// cache apart (Limits.SlotCache), each slot a cell's streams land on
// computes the context's document once.
//
// estimateSpecs is PlanDuration for the cells specs[from:] of p, specs being
// all of p's cells in running order: the cells before from are walked
// too, without being counted, to know which prompts an adaptive plan's
// later cells find cached; those of them that ran are taken as they ran
// (how many samples a prefill cell sent, whether a decode cell was
// skipped), the rest as expected.
//
// The run's first prefill cell also sends a hidden warm-up prompt of its
// context, never measured (warmPrefill), which costs one more sample.
//
// A prompt of C tokens takes C / PrefillRate(C) seconds to prefill cold.
// The cost of each token grows with the tokens before it, so extending a
// cached prompt of a tokens to C costs the difference of the two cold
// times: time(C) − time(a).
func estimateSpecs(p rundoc.Plan, specs []cellSpec, from int, l Limits, measured []rundoc.Cell) time.Duration {
	repeats := expectedRepeats(p, measured)
	window := ExpectedWindow(p, measured).Seconds()
	ramp := rampFor(measured, l)
	// cold is memoised: an adaptive estimate asks it once per stream of
	// every cell, and PrefillRate sorts the measured cells each time.
	colds := map[int]float64{}
	cold := func(c int) float64 {
		if c <= 0 {
			return 0
		}
		if t, ok := colds[c]; ok {
			return t
		}
		colds[c] = float64(c) / PrefillRate(measured, c)
		return colds[c]
	}
	done := rundoc.Run{Cells: measured} // for Find
	var docs *streamDocs
	if p.Adaptive() && p.PromptPolicy() == rundoc.PromptsUnique {
		docs = &streamDocs{}
	}
	var shared *sharedDocs
	if p.PromptPolicy() == rundoc.PromptsShared {
		shared = &sharedDocs{}
	}
	held := map[int]int{} // context → slots holding its document (SlotCache)
	warmed := false       // the prefill warm-up was sent
	last := 0
	fresh := func() int { last++; return last }
	var s float64
	for i, sp := range specs {
		var ran *rundoc.Cell
		if i < from {
			ran = done.Find(sp.phase, sp.context, sp.n)
		}
		var cost float64
		if sp.phase == rundoc.PhaseDecode {
			// Every case below that runs the cell adds its window; the
			// ramp is added here, so skipped cells take it back below.
			cost = ramp(sp.context, sp.n)
		}
		switch {
		case sp.phase == rundoc.PhasePrefill:
			if PrefillStatus(sp.context, l) != "" {
				continue
			}
			cost = repeats * cold(sp.context)
			if !warmed {
				// The run's first prefill cell first sends a hidden
				// warm-up prompt of its context (warmPrefill).
				cost += cold(sp.context)
				warmed = true
			}
			seeds := int(repeats)
			if ran != nil {
				seeds = ran.CompletedRequests
			}
			for range seeds {
				d := fresh()
				if docs != nil {
					docs.seed(sp.context, d)
				}
				if shared != nil {
					shared.seed(sp.context, d)
				}
			}
		case DecodeStatus(sp.context, sp.n, p.MaxOutput, l) != "":
			continue
		case sp.phase == rundoc.PhaseBurst:
			cost = burstSeconds(p, sp.context, sp.n, measured) + cold(sp.context)
		case ran != nil && strings.HasPrefix(ran.Reason, notRunReason):
			continue
		case shared != nil:
			d := shared.forContext(sp.context, fresh)
			cost += window + max(0, cold(sp.context)-cold(d.sent))
			if l.SlotCache {
				// The warm-up puts the document on every slot the streams
				// take (warmSlots): each of them not holding it yet
				// computes it once.
				on := max(held[sp.context], 1)
				if need := l.Running(sp.n); need > on {
					cost += float64(need-on) * cold(sp.context)
					on = need
				}
				held[sp.context] = on
			}
		case docs == nil:
			cost += window + float64(sp.n)*cold(sp.context)
		default:
			cost += window
			for _, d := range docs.forCell(sp.context, sp.n, fresh) {
				cost += max(0, cold(sp.context)-cold(d.sent))
			}
		}
		if i >= from {
			s += cost
		}
	}
	return time.Duration(s * float64(time.Second))
}

// AssumedRamp is the expected ramp of a decode cell (METHOD.md: Decode
// cells, step 3) before any was measured: the first readiness check and
// the 3 s hold, plus a second for the streams' first tokens.
const AssumedRamp = rundoc.SteadyCheck + rundoc.SteadyHold + time.Second

// ExpectedRamp is the expected time from a decode cell's first send to
// its window's opening: the mean ramp of the steady-state cells measured
// so far, else AssumedRamp.
func ExpectedRamp(measured []rundoc.Cell) time.Duration {
	var sum float64
	n := 0
	for _, c := range measured {
		if c.Phase == rundoc.PhaseDecode && c.RampS > 0 {
			sum += c.RampS
			n++
		}
	}
	if n == 0 {
		return AssumedRamp
	}
	return time.Duration(sum / float64(n) * float64(time.Second))
}

// rampFor returns the expected ramp in seconds of a decode cell (C, N):
// ExpectedRamp of the cells that were not queued by the server's slots,
// and for a cell that is (Limits.Queued) the mean ramp of such cells
// measured so far, else the warm-up limit: its waiting requests get no
// token while the running ones outlast the ramp, so steady state never
// comes (issue 28 item 2: 8 on 4 slots).
func rampFor(measured []rundoc.Cell, l Limits) func(context, n int) float64 {
	var free, queued []rundoc.Cell
	for _, c := range measured {
		if l.Queued(c.Concurrency) {
			queued = append(queued, c)
		} else {
			free = append(free, c)
		}
	}
	normal := ExpectedRamp(free).Seconds()
	var sum float64
	n := 0
	for _, c := range queued {
		if c.Phase == rundoc.PhaseDecode && c.RampS > 0 {
			sum, n = sum+c.RampS, n+1
		}
	}
	return func(context, conc int) float64 {
		switch {
		case !l.Queued(conc):
			return normal
		case n > 0:
			return sum / float64(n)
		}
		return rundoc.SteadyLimit(context).Seconds()
	}
}

// AssumedAutoWindow is the expected length of an adaptive decode window
// before any was measured: twice the minimum, since a window stops at the
// minimum only when the rate is steady from its first seconds.
const AssumedAutoWindow = 2 * rundoc.MinAutoWindow

// ExpectedWindow is the expected length of a decode window of the plan: D
// for fixed windows; for adaptive ones the mean length of the adaptive
// windows measured so far, else AssumedAutoWindow, never above D.
func ExpectedWindow(p rundoc.Plan, measured []rundoc.Cell) time.Duration {
	if !p.Adaptive() {
		return p.Duration()
	}
	var sum float64
	n := 0
	for _, c := range measured {
		if c.Phase == rundoc.PhaseDecode && c.Status.Ran() && c.MeasuredS > 0 {
			sum, n = sum+c.MeasuredS, n+1
		}
	}
	if n == 0 {
		return min(AssumedAutoWindow, p.Duration())
	}
	return min(time.Duration(sum/float64(n)*float64(time.Second)), p.Duration())
}

// expectedRepeats is how many requests a prefill cell of the plan is
// expected to send: 1 for fixed windows; for adaptive ones the mean of the
// prefill cells measured so far, else rundoc.MinPrefillRepeats.
func expectedRepeats(p rundoc.Plan, measured []rundoc.Cell) float64 {
	if !p.Adaptive() {
		return 1
	}
	var sum float64
	n := 0
	for _, c := range measured {
		if c.Phase == rundoc.PhasePrefill && c.Status == rundoc.StatusValid && c.CompletedRequests > 0 {
			sum, n = sum+float64(c.CompletedRequests), n+1
		}
	}
	if n == 0 {
		return rundoc.MinPrefillRepeats
	}
	return sum / float64(n)
}
