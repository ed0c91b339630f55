//go:build !race

package bench_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// referenceCSV is the published RTX 3060 run (a copy of shared/reference/).
const referenceCSV = "../report/testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

// referenceSpeed runs the simulator this many times faster than real time.
// The runner reads the factor from the simulator's /version and reports
// figures in the simulated card's time.
const referenceSpeed = 20

// TestReferenceRun is the simulator's acceptance test (issue 3): the real
// benchmark engine runs the reference plan against the default profile,
// and the result must look like the published RTX 3060 run: ≥ 90% of cells
// with the same status, and Valid cells' total tok/s and the prefill
// prompt tok/s within ±15%.
func TestReferenceRun(t *testing.T) {
	if testing.Short() {
		t.Skip("the reference run takes about a minute; skipped with -short")
	}
	f, err := os.Open(referenceCSV)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := report.ReadReferenceCSV(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}

	cfg := sim.DefaultConfig()
	cfg.Speed, cfg.Seed = referenceSpeed, 1
	_, c := startSimN(t, cfg, 128)
	plan := rundoc.Plan{
		Contexts:        []int{0, 16384, 32768, 65536, 131072, rundoc.ContextMax},
		Concurrency:     rundoc.DefaultConcurrency,
		PrefillContexts: rundoc.DefaultPrefillContexts,
		DurationS:       30, // 1.5 s of real time at speed 20
		MaxOutput:       8192,
	}
	start := time.Now()
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("reference plan ran in %v at speed %d", time.Since(start).Round(time.Second), referenceSpeed)

	var b strings.Builder
	fmt.Fprintf(&b, "\n%-8s %-7s %4s  %-15s %-15s %10s %10s %7s\n", "phase", "context", "N", "reference", "simulated", "ref tok/s", "sim tok/s", "Δ%")
	same, total, figuresOff := 0, 0, 0
	for _, rc := range ref.Cells {
		// The reference's last row is labelled 248K = max_model_len − M.
		got := run.Find(rc.Phase, rc.Context, rc.Concurrency)
		if got == nil {
			t.Errorf("no simulated cell for %s %d×%d", rc.Phase, rc.Context, rc.Concurrency)
			continue
		}
		total++
		if got.Status == rc.Status {
			same++
		}
		refV, simV := rc.TotalTokS, got.TotalTokS
		if rc.Phase == rundoc.PhasePrefill {
			refV, simV = rc.PromptTokS, got.PromptTokS
		}
		delta := math.NaN()
		if refV > 0 && simV > 0 {
			delta = 100 * (simV - refV) / refV
		}
		mark := ""
		if rc.Status == rundoc.StatusValid && got.Status.Ran() && !(math.Abs(delta) <= 15) {
			figuresOff++
			mark = "  ← off by more than 15%"
		}
		fmt.Fprintf(&b, "%-8s %-7s %4d  %-15s %-15s %10.1f %10.1f %7.1f%s\n", rc.Phase, rundoc.ContextLabel(rc.Context),
			rc.Concurrency, rc.Status, got.Status, refV, simV, delta, mark)
	}
	t.Log(b.String())
	if frac := float64(same) / float64(total); frac < 0.90 {
		t.Errorf("%d of %d cells (%.0f%%) have the reference status, want ≥ 90%%", same, total, 100*frac)
	}
	if figuresOff > 0 {
		t.Errorf("%d Valid cells are more than 15%% off the reference", figuresOff)
	}
}

// startSimN is startSim with a connection pool for n streams.
func startSimN(t *testing.T, cfg sim.Config, n int) (*sim.Server, *client.Client) {
	t.Helper()
	s, c := startSim(t, cfg)
	c2, err := client.New(c.Endpoint(), client.WithConcurrency(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c2.CloseIdle)
	return s, c2
}
