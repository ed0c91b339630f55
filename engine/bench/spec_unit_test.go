package bench

import (
	"slices"
	"testing"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestSpecDelta: the drafting figures come from the counters' change over
// a span, with the generated tokens of the same scrapes; a counter that
// went backwards (a restarted server) or a span without drafts gives none.
func TestSpecDelta(t *testing.T) {
	a := &specReading{hasCounters: true, generated: 1000, spec: client.SpecCounters{Drafts: 100, DraftTokens: 200, Accepted: 150, AcceptedPerPos: []float64{90, 60}}}
	b := &specReading{hasCounters: true, generated: 1700, spec: client.SpecCounters{Drafts: 400, DraftTokens: 800, Accepted: 540, AcceptedPerPos: []float64{330, 210}}}
	d, ok := specDelta(a, b)
	if !ok || d.Drafts != 300 || d.DraftTokens != 600 || d.Accepted != 390 || d.Output != 700 || !slices.Equal(d.AcceptedPerPos, []float64{240, 150}) {
		t.Fatalf("delta %+v, %v", d, ok)
	}
	c := &rundoc.Cell{TotalTokS: 230, TotalTokSCI95: 4.6}
	rundoc.SetSpec(c, d, 3)
	// 300 drafted steps + (700 − 690) steps without drafts = 310 steps.
	if c.EngineSteps != 310 || c.SpecAcceptRate != 0.65 || c.SpecAcceptLength != 2.3 || c.SpecAcceptLengthEff != 2.2581 ||
		c.StepsPerS != 101.9 || c.StepsPerSCI95 != 2 || c.ProjectedTokS != 305.6 || !slices.Equal(c.SpecPosAccept, []float64{0.8, 0.5}) {
		t.Errorf("figures %+v", c.CellSpec)
	}
	if _, ok := specDelta(b, a); ok {
		t.Error("counters that went backwards gave figures")
	}
	if _, ok := specDelta(a, a); ok {
		t.Error("a span without drafts gave figures")
	}
	if d, ok := specDelta(&specReading{acceptLength: 2.1}, &specReading{acceptLength: 2.4}); !ok || d.AcceptLength != 2.4 {
		t.Errorf("SGLang's gauge: %+v %v", d, ok)
	}
}

// noteUncountedSteps names the steps missing only for a speculative
// launch's cell that ran without drafting figures.
func TestNoteUncountedSteps(t *testing.T) {
	r := &rundoc.Roofline{Speculative: true}
	noteUncountedSteps(r, &rundoc.Cell{Status: rundoc.StatusValid, CellSpec: rundoc.CellSpec{StepsPerS: 40, SpecAcceptLengthEff: 2}})
	if len(r.Missing) != 0 {
		t.Fatalf("a counted cell marked the steps missing: %v", r.Missing)
	}
	noteUncountedSteps(r, &rundoc.Cell{Status: rundoc.StatusFailed})
	noteUncountedSteps(r, &rundoc.Cell{Status: rundoc.StatusValid})
	noteUncountedSteps(r, &rundoc.Cell{Status: rundoc.StatusValid})
	if !slices.Equal(r.Missing, []string{rundoc.RooflineMissingSteps}) {
		t.Errorf("missing %v, want the steps once", r.Missing)
	}
	plain := &rundoc.Roofline{}
	noteUncountedSteps(plain, &rundoc.Cell{Status: rundoc.StatusValid})
	if len(plain.Missing) != 0 {
		t.Errorf("a plain launch marked the steps missing")
	}
}

// A window whose server counted but proposed no draft yields one token per
// step: steps/s is its tok/s and no acceptance is claimed. A server whose
// counters cannot be a drafter's (fewer tokens than drafted steps) is not
// believed.
func TestSpecDeltaEdges(t *testing.T) {
	a := &specReading{hasCounters: true, generated: 100}
	b := &specReading{hasCounters: true, generated: 600}
	d, ok := specDelta(a, b)
	c := &rundoc.Cell{TotalTokS: 50, TotalTokSCI95: 1}
	rundoc.SetSpec(c, d, 0)
	if !ok || c.SpecAcceptLengthEff != 1 || c.StepsPerS != 50 || c.EngineSteps != 500 || c.SpecDrafts != 0 || c.SpecAcceptRate != 0 {
		t.Errorf("no drafts: %+v (%v)", c.CellSpec, ok)
	}
	if got := rundoc.FigSpecAcceptRate.Text(c); got != "" {
		t.Errorf("no drafts proposed, yet an acceptance rate %q", got)
	}
	bad := &specReading{hasCounters: true, generated: 150, spec: client.SpecCounters{Drafts: 100, DraftTokens: 200, Accepted: 10}}
	if _, ok := specDelta(a, bad); ok {
		t.Error("50 tokens from 100 drafted steps were believed")
	}
	zero := &rundoc.Cell{Phase: rundoc.PhaseDecode, CellSpec: rundoc.CellSpec{SpecDrafts: 10, SpecDraftTokens: 20, SpecAcceptLengthEff: 1.1}}
	if got := rundoc.FigSpecAcceptRate.Text(zero); got != "0.0" {
		t.Errorf("every draft rejected reads %q, want 0.0", got)
	}
}
