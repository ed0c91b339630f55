package diagnose_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
)

// TestDraftsPoorly: an n-gram drafter on a prompt with nothing to copy
// has most drafts rejected; the diagnosis names that apart from the
// bandwidth, with its acceptance as evidence, and the advice points at
// the drafter (and Tune's vary), not at turning speculation on.
func TestDraftsPoorly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator in real time: skipped with -short (make test runs it)")
	}
	cfg := sim.DefaultConfig()
	cfg.Speed = 20
	cfg.Speculative = &sim.Speculation{Method: "ngram", Tokens: 3}
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 15, MaxOutput: 256}
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: noGPU, NoTelemetry: true})
	if err != nil {
		t.Fatal(err)
	}
	c := run.Find(rundoc.PhaseDecode, 0, 1)
	if c == nil || !c.Speculative() || len(c.SpecPosAccept) == 0 || c.SpecPosAccept[0] >= diagnose.PoorAcceptRate {
		t.Fatalf("0×1 with an n-gram drafter on a varied prompt: %+v", c)
	}
	var found bool
	for _, b := range diagnose.Cell(run, c) {
		if b.Kind == diagnose.Drafting {
			found = true
			if !strings.Contains(b.Text(), "drafts poorly") || !strings.Contains(b.Evidence, "of its first drafted tokens") {
				t.Errorf("drafting bottleneck %q does not give its acceptance", b.Text())
			}
		}
	}
	if !found {
		t.Fatalf("0×1 accepted %.0f%% of its first drafts and is not diagnosed as drafting poorly: %v", 100*c.SpecPosAccept[0], diagnose.Cell(run, c))
	}
	var advice []string
	for _, a := range diagnose.Advise(run) {
		advice = append(advice, a.Text())
	}
	all := strings.Join(advice, "\n")
	if !strings.Contains(all, "--vary speculative=") {
		t.Errorf("no advice names Tune's speculative vary:\n%s", all)
	}
	if strings.Contains(all, "speculative decoding, --speculative-config") {
		t.Errorf("a speculative run is advised to turn speculative decoding on:\n%s", all)
	}
	t.Logf("0×1: accepted %.1f%%, %.2f tokens/step\n%s", 100*c.SpecAcceptRate, c.SpecAcceptLengthEff, all)
}

// TestDraftingJudgedOnTheFirstPosition: a long draft whose first token is
// mostly accepted does not draft poorly, however low its overall rate
// (which falls with k by construction); one whose first token is mostly
// rejected does, and one that proposed nothing is named too.
func TestDraftingJudgedOnTheFirstPosition(t *testing.T) {
	run := &rundoc.Run{}
	for _, tc := range []struct {
		spec rundoc.CellSpec
		want string
	}{
		{rundoc.CellSpec{SpecDrafts: 100, SpecDraftTokens: 400, SpecAcceptRate: 0.43, SpecPosAccept: []float64{0.78, 0.52, 0.3, 0.1}, SpecAcceptLengthEff: 2.7, SpecOutputTokens: 270}, ""},
		{rundoc.CellSpec{SpecDrafts: 100, SpecDraftTokens: 200, SpecAcceptRate: 0.2, SpecPosAccept: []float64{0.3, 0.1}, SpecAcceptLengthEff: 1.4, SpecOutputTokens: 140}, "of its first drafted tokens"},
		{rundoc.CellSpec{SpecAcceptLengthEff: 1, SpecOutputTokens: 500}, "proposed no draft"},
	} {
		c := &rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50, CellSpec: tc.spec}
		got := ""
		for _, b := range diagnose.Cell(run, c) {
			if b.Kind == diagnose.Drafting {
				got = b.Evidence
			}
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: drafting evidence %q, want %q", tc.spec, got, tc.want)
		}
	}
}
