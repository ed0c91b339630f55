package runview

import (
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Facts are what the plan check needs to know about the server: its
// max_model_len and KV capacity K in tokens (0 = unknown), and the
// simulator's speed factor in demo mode (0 or 1 = real time), which makes
// a demo run S times shorter than the card it imitates.
type Facts struct {
	MaxModelLen int
	KVCapacity  int
	Speed       float64
}

// Predict applies METHOD.md's plan check (bench.Predict) to every decode
// cell of p and returns a preview run whose cells hold only the predicted
// statuses (cells that will run are absent). Contexts of ContextMax resolve
// to max_model_len − M when the length is known and are dropped otherwise.
func Predict(p rundoc.Plan, f Facts) *rundoc.Run {
	k := f.KVCapacity
	if p.KVCapacityOverride > 0 {
		k = p.KVCapacityOverride
	}
	r := &rundoc.Run{Plan: p}
	r.Plan.Contexts = p.Resolve(f.MaxModelLen).Contexts
	for _, c := range r.Plan.Contexts {
		for _, n := range p.Concurrency {
			if st := bench.Predict(c, n, p.MaxOutput, f.MaxModelLen, k); st != "" {
				r.Cells = append(r.Cells, rundoc.Cell{Phase: rundoc.PhaseDecode, Context: c, Concurrency: n, Status: st})
			}
		}
	}
	return r
}

// Estimate is the expected length of a run in real time (bench.Estimate,
// divided by the simulator's speed in demo mode), with measured prefill
// cells, when there are any, setting the warm-up rate. Runnable is the
// number of decode cells that will run.
func Estimate(preview *rundoc.Run, f Facts, measured []rundoc.Cell) (d time.Duration, runnable int) {
	p := preview.Plan
	k := f.KVCapacity
	if p.KVCapacityOverride > 0 {
		k = p.KVCapacityOverride
	}
	for _, c := range p.Contexts {
		for _, n := range p.Concurrency {
			if preview.Find(rundoc.PhaseDecode, c, n) == nil {
				runnable++
			}
		}
	}
	d = bench.Estimate(p, f.MaxModelLen, k, measured)
	if f.Speed > 1 {
		d = time.Duration(float64(d) / f.Speed)
	}
	return d, runnable
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
