package runview

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestPlanFormAsksForBurstCells (issue 39): the Run form's "Burst cells:
// after the matrix" and its "Burst K" read as the CLI's --burst and
// --request-count do (through rundoc.PlanInput): ticked, burst cells follow
// the matrix with K = 4N unless K is given; K alone runs them instead of
// it; a K that is no count is refused naming the field; a restored plan
// ticks the box again.
func TestPlanFormAsksForBurstCells(t *testing.T) {
	test.NewTempApp(t)
	f := newPlanForm(func() {})
	if p, err := f.plan(); err != nil || p.HasBurst() {
		t.Fatalf("the form's default plan: burst %q, %v; want none", p.Burst, err)
	}
	test.Tap(f.burst)
	p, err := f.plan()
	if err != nil || p.Burst != rundoc.BurstAfter || p.RequestCountFor(16) != 64 {
		t.Errorf("ticked: burst %q, K at N=16 %d, %v; want after, 64", p.Burst, p.RequestCountFor(16), err)
	}
	test.Type(f.entries[rundoc.FieldRequestCount], "10")
	if p, err = f.plan(); err != nil || p.Burst != rundoc.BurstAfter || p.RequestCount != 10 {
		t.Errorf("ticked with K 10: burst %q K %d, %v", p.Burst, p.RequestCount, err)
	}
	restored := newPlanForm(func() {})
	restored.set(p)
	if back, err := restored.plan(); err != nil || !restored.burst.Checked || back.Burst != p.Burst || back.RequestCount != p.RequestCount {
		t.Errorf("restored: ticked %v, burst %q K %d, %v", restored.burst.Checked, back.Burst, back.RequestCount, err)
	}
	test.Tap(f.burst) // untick: K alone
	if p, err = f.plan(); err != nil || p.Burst != rundoc.BurstOnly {
		t.Errorf("K alone: burst %q, %v; want only", p.Burst, err)
	}
	f.entries[rundoc.FieldRequestCount].SetText("8K")
	if _, err = f.plan(); err == nil || err.Error()[:len("Burst K must")] != "Burst K must" {
		t.Errorf("K 8K: %v; want the field's sentence", err)
	}
}
