package runview

import (
	"time"

	"github.com/rigbench/rigbench/engine/bench"
)

// assumedPrefillTokS is the prompt rate the estimate uses before a run has
// measured one: roughly a 12 GB consumer card on a 4B model (the reference
// run's 8K prefill is 2341 tok/s). It only sizes the warm-up term.
const assumedPrefillTokS = 2000.0

// Facts are what the plan check needs to know about the server: its
// max_model_len and KV capacity K in tokens (0 = unknown).
type Facts struct {
	MaxModelLen int
	KVCapacity  int
}

// Predict applies METHOD.md's plan check to every decode cell of p and
// returns a preview run whose cells hold only the predicted statuses
// (cells that will run are absent). Contexts of ContextMax resolve to
// max_model_len − M when the length is known and are dropped otherwise.
func Predict(p bench.Plan, f Facts) *bench.Run {
	k := f.KVCapacity
	if p.KVCapacityOverride > 0 {
		k = p.KVCapacityOverride
	}
	r := &bench.Run{Plan: p}
	r.Plan.Contexts = resolveContexts(p, f)
	for _, c := range r.Plan.Contexts {
		for _, n := range p.Concurrency {
			need := c + p.MaxOutput
			switch {
			case f.MaxModelLen > 0 && need > f.MaxModelLen:
				r.Cells = append(r.Cells, bench.Cell{Phase: bench.PhaseDecode, Context: c, Concurrency: n, Status: bench.StatusExceedsLength})
			case k > 0 && n*need > k:
				r.Cells = append(r.Cells, bench.Cell{Phase: bench.PhaseDecode, Context: c, Concurrency: n, Status: bench.StatusOverCapacity})
			}
		}
	}
	return r
}

func resolveContexts(p bench.Plan, f Facts) []int {
	var out []int
	for _, c := range p.Contexts {
		if c == bench.ContextMax {
			if f.MaxModelLen <= 0 || f.MaxModelLen-p.MaxOutput <= 0 {
				continue
			}
			c = f.MaxModelLen - p.MaxOutput
		}
		out = append(out, c)
	}
	return out
}

// Estimate is the expected length of a run: D per runnable decode cell,
// plus the warm-up of each runnable cell (N prompts of C tokens at the
// prefill rate), plus each prefill cell (C tokens at that rate). Runnable
// is the number of decode cells that will run.
func Estimate(preview *bench.Run, prefillTokS float64) (d time.Duration, runnable int) {
	if prefillTokS <= 0 {
		prefillTokS = assumedPrefillTokS
	}
	p := preview.Plan
	secs := 0.0
	for _, c := range p.Contexts {
		for _, n := range p.Concurrency {
			if preview.Find(bench.PhaseDecode, c, n) != nil {
				continue
			}
			runnable++
			secs += p.DurationS + float64(n*c)/prefillTokS
		}
	}
	for _, c := range p.PrefillContexts {
		secs += float64(c) / prefillTokS
	}
	return time.Duration(secs * float64(time.Second)), runnable
}

// FormatDuration prints a duration the way the view shows estimates and
// ETAs: "45 s", "12 min", "1 h 05 min".
func FormatDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 90:
		return itoa(s) + " s"
	case s < 3600:
		return itoa((s+30)/60) + " min"
	default:
		m := (s + 30) / 60
		mm := m % 60
		pad := ""
		if mm < 10 {
			pad = "0"
		}
		return itoa(m/60) + " h " + pad + itoa(mm) + " min"
	}
}
