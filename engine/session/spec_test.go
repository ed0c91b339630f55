package session_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
)

// specRun runs plan on the demo with cfg and returns the run and the
// simulator that served it (its truth).
func specRun(t *testing.T, cfg sim.Config, plan rundoc.Plan) (*rundoc.Run, *sim.Server) {
	t.Helper()
	var srv *sim.Server
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: noGPU, NoTelemetry: true,
		OnSim: func(s *sim.Server) { srv = s }})
	if err != nil {
		t.Fatal(err)
	}
	if srv == nil {
		t.Fatal("the demo did not hand its simulator over")
	}
	return run, srv
}

// window is a decode cell's window in real time: from its opening for
// its measured card seconds at the simulator's speed.
func window(c *rundoc.Cell, speed float64) (time.Time, time.Time) {
	return c.WindowStart, c.WindowStart.Add(time.Duration(c.MeasuredS / speed * float64(time.Second)))
}

// TestSpeculativeCellsMatchTruth is issue 39's first "done when": with
// --speculative-config mtp:2, every decode cell's acceptance rate,
// effective acceptance length and steps/s equal what the simulator did in
// the cell's window within 1%, its roofline share is within 5 points of
// the profile's, and, on a profile whose drafting costs nothing, a plain
// launch's steps/s (its total tok/s) is within the speculative run's ±.
func TestSpeculativeCellsMatchTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through whole cells in real time: skipped with -short (make test runs it)")
	}
	const speed = 10
	cfg := sim.DefaultConfig()
	cfg.Speed = speed
	cfg.Speculative = &sim.Speculation{Method: "mtp", Tokens: 2}
	plan := rundoc.Plan{Contexts: []int{0, 4096}, Concurrency: []int{1, 4}, DurationS: 20, MaxOutput: 512, AcceptLenRef: 3}
	run, srv := specRun(t, cfg, plan)
	for _, c := range run.Cells {
		if c.Phase != rundoc.PhaseDecode {
			continue
		}
		if c.Status != rundoc.StatusValid || !c.Speculative() {
			t.Fatalf("%s: %s (%s), drafting %+v", c.Name(), c.Status, c.Reason, c.CellSpec)
		}
		truth := srv.SpecTruth(window(&c, speed))
		stepsPerS := float64(truth.SeqSteps) / c.MeasuredS
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"acceptance rate", c.SpecAcceptRate, truth.AcceptRate()},
			{"effective acceptance length", c.SpecAcceptLengthEff, truth.EffectiveLength()},
			{"steps/s", c.StepsPerS, stepsPerS},
		} {
			if math.Abs(f.got-f.want) > 0.01*f.want {
				t.Errorf("%s: %s %.4g, the simulator's %.4g (%+.2f%%)", c.Name(), f.name, f.got, f.want, 100*(f.got-f.want)/f.want)
			}
		}
		if want := c.StepsPerS * plan.AcceptLenRef; math.Abs(c.ProjectedTokS-want) > 0.2 {
			t.Errorf("%s: projected %.1f tok/s, want steps/s × 3 = %.1f", c.Name(), c.ProjectedTokS, want)
		}
		// Chunks carry several tokens; RigBench counts tokens, so its
		// count still agrees with the server's (METHOD.md: Cross-check).
		if c.ServerTokenDiffPct == nil || math.Abs(*c.ServerTokenDiffPct) > rundoc.ServerCheckTolerancePct || c.TokenCountMismatch {
			t.Errorf("%s: the cross-check does not hold with multi-token chunks: server Δ %v%%, mismatch %v", c.Name(), c.ServerTokenDiffPct, c.TokenCountMismatch)
		}
		if len(c.SpecPosAccept) != 2 || !(c.SpecPosAccept[0] > c.SpecPosAccept[1]) {
			t.Errorf("%s: per-position acceptance %v, want two falling shares", c.Name(), c.SpecPosAccept)
		}
		t.Logf("%s: %.1f tok/s, accepted %.1f%% (truth %.1f%%), L_eff %.3f (%.3f), %.1f steps/s (%.1f), roofline %.0f%%",
			c.Name(), c.TotalTokS, 100*c.SpecAcceptRate, 100*truth.AcceptRate(), c.SpecAcceptLengthEff, truth.EffectiveLength(), c.StepsPerS, stepsPerS, c.RooflinePct)
	}
	c := run.Find(rundoc.PhaseDecode, 0, 1)
	if want := 100 * cfg.Profile.SpecBandwidthFraction(cfg.Speculative); math.Abs(c.RooflinePct-want) > 5 {
		t.Errorf("0×1 reads %.1f%% of the roofline, want the profile's %.1f%% ± 5", c.RooflinePct, want)
	}

	// Drafting that costs nothing: the engine steps as fast either way.
	free := cfg
	free.Profile.Spec.DraftShare, free.Profile.Spec.VerifyPerTokenS = 0, 0
	plan = rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 20, MaxOutput: 512}
	specd, _ := specRun(t, free, plan)
	free.Speculative = nil
	plain, _ := specRun(t, free, plan)
	s, p := specd.Find(rundoc.PhaseDecode, 0, 4), plain.Find(rundoc.PhaseDecode, 0, 4)
	if p.Speculative() || p.StepsPerS != 0 {
		t.Errorf("a plain launch has drafting figures: %+v", p.CellSpec)
	}
	if math.Abs(s.StepsPerS-p.TotalTokS) > s.StepsPerSCI95+p.TotalTokSCI95 {
		t.Errorf("free drafting: %.1f ± %.1f steps/s, plain %.1f ± %.1f tok/s (its steps/s): want them within their ±",
			s.StepsPerS, s.StepsPerSCI95, p.TotalTokS, p.TotalTokSCI95)
	}
	t.Logf("free drafting: %.1f ± %.1f steps/s at %.1f tok/s; plain %.1f ± %.1f", s.StepsPerS, s.StepsPerSCI95, s.TotalTokS, p.TotalTokS, p.TotalTokSCI95)
}

// TestSpeculativeSGLang: SGLang gives only its spec_accept_length gauge;
// a drafting cell then takes its acceptance length from the gauge's last
// reading in the window, and steps/s from it, close to what the
// simulator's drafted steps yielded.
func TestSpeculativeSGLang(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator in real time: skipped with -short (make test runs it)")
	}
	const speed = 10
	cfg := sim.DefaultConfig()
	cfg.Speed, cfg.Personality = speed, sim.PersonalitySGLang
	cfg.Speculative = &sim.Speculation{Method: "mtp", Tokens: 2}
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 20, MaxOutput: 512}
	run, srv := specRun(t, cfg, plan)
	c := run.Find(rundoc.PhaseDecode, 0, 4)
	if c == nil || !c.Status.Ran() || !c.Speculative() || c.StepsPerS <= 0 || c.SpecDrafts != 0 {
		t.Fatalf("0×4 on SGLang: %+v", c)
	}
	truth := srv.SpecTruth(window(c, speed))
	want := float64(truth.Accepted+truth.Drafts) / float64(truth.Drafts)
	if math.Abs(c.SpecAcceptLength-want) > 0.05*want {
		t.Errorf("acceptance length %.3f from the gauge, the simulator's drafted steps yielded %.3f", c.SpecAcceptLength, want)
	}
}
