package bench

import (
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// specReading is one reading of a speculative server's counters: vLLM's
// spec_decode counters with its generated-token counter from the same
// scrape (out in METHOD.md's derivation must cover the same span), or
// SGLang's acceptance-length gauge.
type specReading struct {
	spec         client.SpecCounters
	hasCounters  bool
	generated    float64
	acceptLength float64
}

// readSpec takes a scrape's drafting figures: nil when the server exposes
// none (it does not decode speculatively).
func readSpec(m client.Metrics) *specReading {
	switch {
	case m.Spec != nil && m.HasGenerationTokens:
		return &specReading{spec: *m.Spec, hasCounters: true, generated: m.GenerationTokens}
	case m.HasSpecAcceptLength && m.SpecAcceptLength >= 1:
		return &specReading{acceptLength: m.SpecAcceptLength}
	}
	return nil
}

// specSpan is a window's readings at its opening (the readiness baseline,
// else its first sample) and at its last sample.
type specSpan struct{ first, last *specReading }

// delta is the counters' change from a to b; ok is false when either is
// missing or a counter went backwards (a restarted server).
func specDelta(a, b *specReading) (d rundoc.SpecDelta, ok bool) {
	if a == nil || b == nil {
		return d, false
	}
	if !a.hasCounters || !b.hasCounters {
		d.AcceptLength = b.acceptLength
		return d, d.Valid()
	}
	d = rundoc.SpecDelta{
		Counted:     true,
		Drafts:      b.spec.Drafts - a.spec.Drafts,
		DraftTokens: b.spec.DraftTokens - a.spec.DraftTokens,
		Accepted:    b.spec.Accepted - a.spec.Accepted,
		Output:      b.generated - a.generated,
	}
	for i, x := range b.spec.AcceptedPerPos {
		prev := 0.0
		if i < len(a.spec.AcceptedPerPos) {
			prev = a.spec.AcceptedPerPos[i]
		}
		d.AcceptedPerPos = append(d.AcceptedPerPos, x-prev)
	}
	// A counter that went backwards (a restarted server) or moved beyond
	// what drafting can make is not believed (SpecDelta.Valid).
	return d, d.Valid()
}

// specFigures sets a decode cell's drafting figures (METHOD.md:
// Speculative decoding) from the counters' change over its window: from
// its opening to its last sample, the span whose tokens total tok/s
// counts, so the ramp's first tokens (steps without drafts) do not lower
// the acceptance length the window ran at. A window too short for a
// sample inside it falls back on the readings before its first send and
// after its last request (before, after).
func (w *window) specFigures(before, after *counters) {
	if w.cell.Phase != rundoc.PhaseDecode || !w.cell.Status.Ran() && w.cell.Status != "" {
		return
	}
	d, ok := specDelta(w.spec.first, w.spec.last)
	if !ok && before != nil && after != nil {
		d, ok = specDelta(before.spec, after.spec)
	}
	if ok {
		rundoc.SetSpec(w.cell, d, w.run.Plan.AcceptLenRef)
	}
}
