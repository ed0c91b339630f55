//go:build !race

package bench_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

var adaptiveMatrix = flag.Bool("adaptive-matrix", false, "run TestAdaptiveMatrix (minutes; make bench)")

// TestAdaptiveMatrix is issue 15's acceptance measurement: the default
// matrix on the simulated RTX 3060 at speed 20, once with fixed 30 s
// windows and once with --duration auto, then the same for a matrix of
// short contexts (0 and 16K), where windows are most of the time. Every
// cell Valid in both must agree with the fixed figure within 2%. It logs
// the wall times and where the card's time went: the issue asked for at
// most 40% of the fixed run's wall time, which the default matrix cannot
// reach while the prefill its warm-ups and prefill cells need (distinct
// prompts up to 248K tokens long) takes about half of the fixed run, so
// the ratio is reported, not asserted (README: Adaptive windows,
// measured; docs/METHOD.md: Prompt reuse). It takes minutes, so it runs
// only with -adaptive-matrix (make bench).
func TestAdaptiveMatrix(t *testing.T) {
	if !*adaptiveMatrix {
		t.Skip("minutes long: run with -adaptive-matrix (make bench)")
	}
	short := rundoc.DefaultPlan()
	short.Contexts, short.PrefillContexts = []int{0, 16384}, []int{8192, 16384}
	for _, m := range []struct {
		name string
		plan rundoc.Plan
	}{{"default matrix", rundoc.DefaultPlan()}, {"short contexts (0, 16K)", short}} {
		t.Run(m.name, func(t *testing.T) { compareWindowMethods(t, m.plan) })
	}
}

// compareWindowMethods runs base on the simulated RTX 3060 at speed 20
// with fixed 30 s windows, then with adaptive ones, and compares them.
func compareWindowMethods(t *testing.T, base rundoc.Plan) {
	cfg := sim.DefaultConfig()
	cfg.Speed, cfg.Seed = referenceSpeed, 1
	runs := map[string]*rundoc.Run{}
	walls := map[string]time.Duration{}
	for _, method := range []string{rundoc.WindowFixed, rundoc.WindowAuto} {
		_, c := startSimN(t, cfg, 128)
		plan := base
		plan.Window = method
		if method == rundoc.WindowFixed {
			plan.Precision = 0
		}
		start := time.Now()
		run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
		if err != nil {
			t.Fatalf("%s run: %v", method, err)
		}
		runs[method], walls[method] = run, time.Since(start)
	}
	ratio := walls[rundoc.WindowAuto].Seconds() / walls[rundoc.WindowFixed].Seconds()

	var b strings.Builder
	fmt.Fprintf(&b, "\n%-8s %-7s %4s %-15s %10s %10s %8s %7s %7s\n", "phase", "context", "N", "status", "30 s", "auto", "± auto", "Δ%", "auto s")
	off, outside, valid := 0, 0, 0
	for _, fc := range runs[rundoc.WindowFixed].Cells {
		ac := runs[rundoc.WindowAuto].Find(fc.Phase, fc.Context, fc.Concurrency)
		if ac == nil {
			t.Errorf("no adaptive cell for %s %d×%d", fc.Phase, fc.Context, fc.Concurrency)
			continue
		}
		if !fc.Status.Ran() && !ac.Status.Ran() {
			continue
		}
		fv, av, ah := fc.TotalTokS, ac.TotalTokS, ac.TotalTokSCI95
		if fc.Phase == rundoc.PhasePrefill {
			fv, av, ah = fc.PromptTokS, ac.PromptTokS, ac.PromptTokSCI95
		}
		delta, mark := math.NaN(), ""
		if fv > 0 && av > 0 {
			delta = 100 * (av - fv) / fv
		}
		if fc.Phase == rundoc.PhaseDecode && fc.Status == rundoc.StatusValid && ac.Status == rundoc.StatusValid {
			valid++
			if !(math.Abs(delta) <= 2) {
				off++
				mark = "  ← more than 2% off"
			} else if math.Abs(av-fv) > ah {
				outside++
				mark = "  ← outside its ±"
			}
		}
		fmt.Fprintf(&b, "%-8s %-7s %4d %-15s %10.1f %10.1f %8.2f %7.2f %7.1f%s\n", fc.Phase, rundoc.ContextLabel(fc.Context),
			fc.Concurrency, ac.Status, fv, av, ah, delta, ac.MeasuredS, mark)
	}
	t.Log(b.String())
	for _, m := range []string{rundoc.WindowFixed, rundoc.WindowAuto} {
		win, pre := cardSeconds(runs[m])
		t.Logf("%s: decode windows %.0f s, prefill requests %.0f s of card time; %.0f s of card time in all (wall × speed), the rest warm-ups and set-up",
			m, win, pre, walls[m].Seconds()*referenceSpeed)
	}
	t.Logf("wall time: 30 s windows %v, auto %v (%.0f%%)", walls[rundoc.WindowFixed].Round(time.Second),
		walls[rundoc.WindowAuto].Round(time.Second), 100*ratio)
	if valid == 0 {
		t.Error("no decode cell was Valid in both runs")
	}
	if off > 0 {
		t.Errorf("%d Valid decode cells differ from the 30 s figure by more than 2%%", off)
	}
	if outside > 0 {
		t.Logf("%d of %d Valid decode cells differ from the 30 s figure by more than their own ±", outside, valid)
	}
}

// cardSeconds sums, in the card's time, the decode windows and the prefill
// requests of a run.
func cardSeconds(r *rundoc.Run) (windows, prefill float64) {
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode {
			windows += c.MeasuredS
		} else {
			prefill += c.MeasuredS
		}
	}
	return windows, prefill
}
