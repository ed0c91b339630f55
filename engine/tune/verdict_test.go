package tune_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// judged builds a two-dimension spec and judges variants whose runs hold
// the given decode cells (by variant order: base, --max-num-seqs 32,
// --kv-cache-dtype fp8, both).
func judged(t *testing.T, objective string, cons []string, cells ...[]rundoc.Cell) *tune.Result {
	t.Helper()
	plan := rundoc.Plan{Contexts: []int{16384, 65536}, Concurrency: []int{4, 8}}
	o, err := tune.ParseObjective(objective, plan)
	if err != nil {
		t.Fatal(err)
	}
	base := vllm.LaunchConfig{Model: "m"}
	base.Set("--max-num-seqs", "256")
	spec := tune.Spec{ID: "t", Base: base, Mode: tune.Grid, Plan: plan, Objective: o,
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8"), dim(t, "max-num-seqs=256,32")}}
	for _, c := range cons {
		k, err := tune.ParseConstraint(c)
		if err != nil {
			t.Fatal(err)
		}
		spec.Constraints = append(spec.Constraints, k)
	}
	vs := spec.Variants()
	var out []tune.VariantResult
	for i, cs := range cells {
		vr := tune.VariantResult{Variant: vs[i], Status: tune.Measured, Run: &rundoc.Run{Status: rundoc.RunComplete, Cells: cs}}
		if cs == nil {
			vr = tune.VariantResult{Variant: vs[i], Status: tune.FailedToStart, Error: "The KV cache cannot hold one request."}
		}
		out = append(out, vr)
	}
	return tune.Judge(spec, out)
}

func decode(ctx, n int, st rundoc.Status, tokS, ttftMs float64) rundoc.Cell {
	return rundoc.Cell{Phase: rundoc.PhaseDecode, Context: ctx, Concurrency: n, Status: st, TotalTokS: tokS,
		PerRequestTokS: tokS / float64(n), TTFTP90Ms: ttftMs}
}

const v, q, oc = rundoc.StatusValid, rundoc.StatusQueued, rundoc.StatusOverCapacity

func TestVerdictWin(t *testing.T) {
	r := judged(t, "total-tok-s@16Kx8", nil,
		[]rundoc.Cell{decode(16384, 8, v, 100, 900), decode(65536, 4, oc, 0, 0)},
		[]rundoc.Cell{decode(16384, 8, v, 110, 900), decode(65536, 4, v, 50, 3000)},
		[]rundoc.Cell{decode(16384, 8, v, 102, 900), decode(65536, 4, oc, 0, 0)},
		[]rundoc.Cell{decode(16384, 8, v, 138, 800), decode(65536, 4, v, 60, 2500)},
	)
	if r.Best != 3 {
		t.Fatalf("best %d, verdict %q", r.Best, r.Verdict)
	}
	want := "`--kv-cache-dtype fp8 --max-num-seqs 32`: +38% total tok/s at 16K×8 over your flags, and 64K×4 now fits (it was over capacity)."
	if r.Verdict != want {
		t.Errorf("verdict\n%q, want\n%q", r.Verdict, want)
	}
	if len(r.Ties) != 0 {
		t.Errorf("ties %v", r.Ties)
	}
	if cfg, ok := r.BestConfig(); !ok || cfg.Flags[0].Value != "32" || cfg.Flags[1].Value != "fp8" {
		t.Errorf("best config %+v", cfg)
	}
}

func TestVerdictTieKeepsBase(t *testing.T) {
	// +2% is inside the 3% tolerance: the base stays, the change is a tie.
	r := judged(t, "total-tok-s@16Kx8", nil,
		[]rundoc.Cell{decode(16384, 8, v, 100, 900)},
		[]rundoc.Cell{decode(16384, 8, v, 102, 900)},
	)
	if r.Best != 0 || len(r.Ties) != 1 || !strings.HasPrefix(r.Verdict, "Keep your flags") || !strings.Contains(r.Verdict, "tie") {
		t.Errorf("best %d ties %v verdict %q", r.Best, r.Ties, r.Verdict)
	}
}

func TestVerdictLowerIsBetterAndConstraints(t *testing.T) {
	r := judged(t, "ttft-p90@16Kx8", nil,
		[]rundoc.Cell{decode(16384, 8, v, 100, 1000)},
		[]rundoc.Cell{decode(16384, 8, v, 100, 750)},
	)
	if r.Best != 1 || !strings.Contains(r.Verdict, "25% lower TTFT p90 at 16K×8") {
		t.Errorf("best %d verdict %q", r.Best, r.Verdict)
	}
	// A variant that breaks the constraint has no score, however fast.
	r = judged(t, "total-tok-s@16Kx8", []string{"ttft_p90<=2s"},
		[]rundoc.Cell{decode(16384, 8, v, 100, 1500)},
		[]rundoc.Cell{decode(16384, 8, v, 200, 2500)},
	)
	if r.Best != 0 || r.Variants[1].Score.OK || !strings.Contains(r.Variants[1].Score.Why, "ttft_p90<=2s") {
		t.Errorf("best %d, variant 2 %+v", r.Best, r.Variants[1].Score)
	}
}

func TestVerdictBaseWithoutScore(t *testing.T) {
	// The base queues at the objective's cell and the second variant fails
	// to start: the third wins, and the sentence says what the base lacked.
	r := judged(t, "total-tok-s@16Kx8", nil,
		[]rundoc.Cell{decode(16384, 8, q, 80, 900)},
		nil,
		[]rundoc.Cell{decode(16384, 8, v, 120, 900)},
	)
	if r.Best != 2 || r.Variants[1].Status != tune.FailedToStart {
		t.Fatalf("best %d, %+v", r.Best, r.Variants[1])
	}
	want := "`--kv-cache-dtype fp8`: 120.0 total tok/s at 16K×8, where your flags had none (16K×8: requests queued)."
	if r.Verdict != want {
		t.Errorf("verdict\n%q, want\n%q", r.Verdict, want)
	}
}

func TestVerdictSearchObjectives(t *testing.T) {
	r := judged(t, "longest-context@20", nil,
		[]rundoc.Cell{decode(16384, 4, v, 100, 900), decode(65536, 4, v, 60, 3000)},
		[]rundoc.Cell{decode(16384, 4, v, 100, 900), decode(65536, 4, v, 90, 3000)},
	)
	if r.Best != 1 || r.Variants[0].Score.Value != 16384 || !strings.Contains(r.Verdict, "64K reaches 20 tok/s per request, up from 16K") {
		t.Errorf("best %d verdict %q", r.Best, r.Verdict)
	}
	r = judged(t, "most-streams@16K:1s", nil,
		[]rundoc.Cell{decode(16384, 4, v, 100, 900), decode(16384, 8, v, 100, 1200)},
		[]rundoc.Cell{decode(16384, 4, v, 100, 600), decode(16384, 8, v, 100, 950)},
	)
	if r.Best != 1 || !strings.Contains(r.Verdict, "8 streams at 16K with TTFT p90 under 1s, up from 4") {
		t.Errorf("best %d verdict %q", r.Best, r.Verdict)
	}
	r = judged(t, "j-per-token", nil, []rundoc.Cell{decode(16384, 4, v, 100, 900)})
	if r.Best != -1 || !strings.Contains(r.Verdict, "power reading") {
		t.Errorf("without telemetry: best %d verdict %q", r.Best, r.Verdict)
	}
}

func TestDocBestChangesReadBack(t *testing.T) {
	r := judged(t, "total-tok-s@16Kx8", nil,
		[]rundoc.Cell{decode(16384, 8, v, 100, 900)},
		[]rundoc.Cell{decode(16384, 8, v, 100, 900)},
		[]rundoc.Cell{decode(16384, 8, v, 100, 900)},
		[]rundoc.Cell{decode(16384, 8, v, 150, 900)},
	)
	var b strings.Builder
	if err := r.Document().Write(&b); err != nil {
		t.Fatal(err)
	}
	d, err := tune.ReadDoc(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	ch, ok := d.BestChanges()
	if !ok || tune.FlagsLabel(ch) != "--kv-cache-dtype fp8 --max-num-seqs 32" || d.Verdict != r.Verdict {
		t.Errorf("best changes %v %v, verdict %q", ch, ok, d.Verdict)
	}
	var md, page strings.Builder
	d.Markdown(&md)
	d.HTML(&page)
	for _, out := range []string{md.String(), page.String()} {
		if !strings.Contains(out, "150.0") || !strings.Contains(out, "kv-cache-dtype fp8") {
			t.Errorf("export lacks the best variant:\n%s", out)
		}
	}
}

// With ±ci95 on the figures, a tie is a difference within the difference's
// confidence half-width, not the fixed tolerance.
func TestTieUsesConfidenceIntervals(t *testing.T) {
	o := tune.Objective{Kind: tune.MaxTotalTokS}
	// 5% apart, but each ±4%: √(4²+4.2²) ≈ 5.8 > 5, a tie.
	if !o.Tie(tune.Score{Value: 100, CI95: 4, OK: true}, tune.Score{Value: 105, CI95: 4.2, OK: true}) {
		t.Error("a difference inside the intervals is not a tie")
	}
	// 2% apart with ±0.5 each: outside √0.5 ≈ 0.71, a win although under 3%.
	if o.Tie(tune.Score{Value: 100, CI95: 0.5, OK: true}, tune.Score{Value: 102, CI95: 0.5, OK: true}) {
		t.Error("a difference well outside tight intervals is a tie")
	}
	// Without intervals the 3% tolerance applies.
	if !o.Tie(tune.Score{Value: 100, OK: true}, tune.Score{Value: 102, OK: true}) ||
		o.Tie(tune.Score{Value: 100, OK: true}, tune.Score{Value: 104, OK: true}) {
		t.Error("the tolerance without intervals")
	}
}

// A variant whose server died mid-run (its flags ran the card out of
// memory, say) is explained by where it died and what was kept, without
// the run's own advice to resume it: a sweep's resume measures it again.
func TestExplainServerGone(t *testing.T) {
	err := fmt.Errorf("variant 2: %w", &bench.ServerGoneError{URL: "http://127.0.0.1:8000", Cell: "decode 16K×8",
		Where: "4.2 s into the window", Kept: 3, Total: 9, Err: &bench.ExitedError{Report: "exit code 1; the card ran out of memory while serving: lower --gpu-memory-utilization"}})
	sentence, fix := tune.Explain(err)
	want := "the server at http://127.0.0.1:8000 stopped answering during cell decode 16K×8 (4.2 s into the window): its container exited (exit code 1; the card ran out of memory while serving: lower --gpu-memory-utilization); 3 of 9 cells were measured and kept"
	if sentence != want || fix != "" {
		t.Errorf("Explain = %q, %q\nwant      %q", sentence, fix, want)
	}
}

// Issue 24 item 5: the bars and the table's scores come from the judge's
// outcome, so they name the same winner and ties as the verdict; each
// score carries its ±, ties read "a tie", a cell mostly spent waiting says
// so beside its score, and the labels say what differs (item 4).
func TestBarsFollowTheVerdict(t *testing.T) {
	ci := func(c rundoc.Cell, h float64) rundoc.Cell { c.TotalTokSCI95 = h; return c }
	waiting := ci(decode(16384, 8, v, 287.7, 21000), 4)
	waiting.Reason = "TTFT 21 s is 69% of the 30 s window, so this rate is mostly waiting for first tokens"
	res := judged(t, "total-tok-s@16Kx8", nil,
		[]rundoc.Cell{ci(decode(16384, 8, v, 286.9, 900), 4)},
		[]rundoc.Cell{waiting},
		[]rundoc.Cell{ci(decode(16384, 8, v, 287.7, 900), 4)},
		[]rundoc.Cell{ci(decode(16384, 8, v, 200, 900), 2)})
	d := res.Document()
	bars := d.Bars()
	_, rows := d.Table()
	if len(bars) != 4 || len(rows) != 4 {
		t.Fatalf("%d bars, %d rows for 4 variants", len(bars), len(rows))
	}
	labels := map[string]bool{}
	for i, b := range bars {
		if b.Best != (i == res.Best) {
			t.Errorf("bar %d (%s) best = %v; the verdict's winner is %d: %s", i, b.Label, b.Best, res.Best, res.Verdict)
		}
		tied := false
		for _, j := range res.Ties {
			tied = tied || j == i
		}
		if b.Tie != tied || strings.Contains(b.Score, "a tie") != tied {
			t.Errorf("bar %d: tie %v (score %q), the verdict's ties %v", i, b.Tie, b.Score, res.Ties)
		}
		if !strings.Contains(b.Score, " ± ") {
			t.Errorf("bar %d score %q has no ±", i, b.Score)
		}
		if got := rows[i][len(rows[i])-1]; got != b.Score {
			t.Errorf("table score %q, bar %q: two computations", got, b.Score)
		}
		if labels[b.Label] || strings.HasPrefix(b.Label, "--") {
			t.Errorf("bar label %q repeats or reads as a command line", b.Label)
		}
		labels[b.Label] = true
	}
	if res.Best != 0 || !bars[1].Tie || !bars[2].Tie || bars[3].Tie {
		t.Errorf("best %d, ties %v: want the base to win over two tied variants, the 200 tok/s one not tied", res.Best, res.Ties)
	}
	if !strings.Contains(bars[1].Note, "mostly waiting") || bars[0].Note != "" {
		t.Errorf("notes %q, %q: want the waiting note on the second bar only", bars[0].Note, bars[1].Note)
	}
	if !strings.Contains(d.SVG(720, 200), "±") {
		t.Error("the SVG bars carry no ±")
	}
}
