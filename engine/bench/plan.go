package bench

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Defaults of METHOD.md.
var (
	DefaultContexts        = []int{0, 16384, 32768, 65536, 131072, ContextMax}
	DefaultConcurrency     = []int{1, 2, 4, 8, 16, 32, 64, 128}
	DefaultPrefillContexts = []int{8192, 16384, 32768, 65536, 131072}
)

// Default window length D and max output M.
const (
	DefaultDuration  = 30 * time.Second
	DefaultMaxOutput = 8192
)

// DefaultPlan returns METHOD.md's default plan.
func DefaultPlan() Plan {
	return Plan{
		Contexts:        append([]int(nil), DefaultContexts...),
		Concurrency:     append([]int(nil), DefaultConcurrency...),
		PrefillContexts: append([]int(nil), DefaultPrefillContexts...),
		DurationS:       DefaultDuration.Seconds(),
		MaxOutput:       DefaultMaxOutput,
	}
}

// Duration returns D as a time.Duration.
func (p Plan) Duration() time.Duration { return time.Duration(p.DurationS * float64(time.Second)) }

// Speed returns the simulator speed factor S, 1 for real time.
func (p Plan) Speed() float64 {
	if p.SimSpeed > 1 {
		return p.SimSpeed
	}
	return 1
}

// Resolve returns the plan with ContextMax replaced by the longest prompt
// the server takes (maxModelLen − M for decode contexts, which must leave
// room for M output tokens; maxModelLen − 1 for prefill contexts, whose one
// request asks for a single token), and every list sorted ascending
// without duplicates. maxModelLen 0 (unknown) drops ContextMax.
func (p Plan) Resolve(maxModelLen int) Plan {
	out := p
	out.Contexts = resolveMax(p.Contexts, maxModelLen, p.MaxOutput)
	out.Concurrency = sortedUnique(p.Concurrency)
	out.PrefillContexts = resolveMax(p.PrefillContexts, maxModelLen, 1)
	if p.TrimContexts && maxModelLen > 0 {
		out.Contexts = atMost(out.Contexts, maxModelLen)
		out.PrefillContexts = atMost(out.PrefillContexts, maxModelLen)
	}
	return out
}

// resolveMax replaces ContextMax in cs by maxModelLen − output (dropped when
// maxModelLen is unknown) and sorts the result without duplicates.
func resolveMax(cs []int, maxModelLen, output int) []int {
	var out []int
	for _, c := range cs {
		if c == ContextMax {
			if maxModelLen <= 0 {
				continue
			}
			c = max(0, maxModelLen-output)
		}
		out = append(out, c)
	}
	return sortedUnique(out)
}

func atMost(xs []int, limit int) []int {
	var out []int
	for _, x := range xs {
		if x <= limit {
			out = append(out, x)
		}
	}
	return out
}

func sortedUnique(xs []int) []int {
	out := append([]int(nil), xs...)
	sort.Ints(out)
	w := 0
	for i, x := range out {
		if i == 0 || x != out[w-1] {
			out[w] = x
			w++
		}
	}
	return out[:w]
}

// Validate checks a resolved plan against the server's max_model_len (0 =
// unknown) before anything is sent. Errors name the value and the fix.
func (p Plan) Validate(maxModelLen int) error {
	var errs []error
	if p.DurationS <= 0 || math.IsNaN(p.DurationS) || math.IsInf(p.DurationS, 0) {
		errs = append(errs, fmt.Errorf("the window length must be positive, not %gs", p.DurationS))
	}
	if p.MaxOutput < 1 {
		errs = append(errs, fmt.Errorf("max output must be at least 1 token, not %d", p.MaxOutput))
	}
	if len(p.Contexts) == 0 && len(p.PrefillContexts) == 0 {
		errs = append(errs, errors.New("the plan has no contexts: give decode contexts, prefill contexts or both"))
	}
	if len(p.Contexts) > 0 && len(p.Concurrency) == 0 {
		errs = append(errs, errors.New("the plan has decode contexts but no concurrency levels"))
	}
	for _, n := range p.Concurrency {
		if n < 1 || n > 4096 {
			errs = append(errs, fmt.Errorf("concurrency %d is out of range (1–4096)", n))
		}
	}
	for _, c := range append(append([]int(nil), p.Contexts...), p.PrefillContexts...) {
		if c < 0 {
			errs = append(errs, fmt.Errorf("context %d is negative", c))
		}
		if maxModelLen > 0 && c > maxModelLen {
			errs = append(errs, fmt.Errorf("context %s is above the server's max_model_len (%s): drop it or use max",
				ContextLabel(c), ContextLabel(maxModelLen)))
		}
	}
	return errors.Join(errs...)
}

// Predict returns the status a decode cell gets before it runs (METHOD.md:
// Decode cells, step 1), or "" when it will run. K = 0 means unknown: then
// nothing is predicted over capacity and runtime detection decides.
func Predict(context, concurrency, maxOutput, maxModelLen, kvCapacity int) Status {
	if maxModelLen > 0 && context+maxOutput > maxModelLen {
		return StatusExceedsLength
	}
	if kvCapacity > 0 && concurrency*(context+maxOutput) > kvCapacity {
		return StatusOverCapacity
	}
	return ""
}

// PredictPrefill is Predict for a prefill cell: a prompt of C tokens plus
// the one generated token must fit the model length and the KV cache.
func PredictPrefill(context, maxModelLen, kvCapacity int) Status {
	if maxModelLen > 0 && context+1 > maxModelLen {
		return StatusExceedsLength
	}
	if kvCapacity > 0 && context+1 > kvCapacity {
		return StatusOverCapacity
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
func PrefillRate(cells []Cell, context int) float64 {
	type pt struct{ c, r float64 }
	var pts []pt
	for _, c := range cells {
		if c.Phase == PhasePrefill && c.PromptTokS > 0 {
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

// Estimate returns the expected duration of the cells of a resolved plan
// that will run (METHOD.md: Order and time): D per runnable decode cell, plus
// the warm-up prefill of its N prompts, plus each prefill cell, with prompt
// tok/s from the measured cells (PrefillRate).
func Estimate(p Plan, maxModelLen, kvCapacity int, measured []Cell) time.Duration {
	var s float64
	for _, c := range p.PrefillContexts {
		if PredictPrefill(c, maxModelLen, kvCapacity) == "" {
			s += float64(c) / PrefillRate(measured, c)
		}
	}
	for _, c := range p.Contexts {
		for _, n := range p.Concurrency {
			if Predict(c, n, p.MaxOutput, maxModelLen, kvCapacity) != "" {
				continue
			}
			s += p.DurationS + float64(n*c)/PrefillRate(measured, c)
		}
	}
	return time.Duration(s * float64(time.Second))
}
