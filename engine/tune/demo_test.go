package tune_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

var noGPU = &hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "test machine"}

func dim(t *testing.T, s string) tune.Dimension {
	t.Helper()
	d, err := tune.ParseDimension(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// demoSpec is a 4-variant grid (kv-cache-dtype × max-num-seqs) with 2 cells
// per variant, the size the speed figure names.
func demoSpec(t *testing.T) tune.Spec {
	plan := rundoc.Plan{Contexts: []int{1024, 16384}, Concurrency: []int{16}, DurationS: 30, MaxOutput: 1024}
	obj, err := tune.ParseObjective("total-tok-s@16Kx16", plan)
	if err != nil {
		t.Fatal(err)
	}
	base := vllm.LaunchConfig{}
	base.Set("--max-num-seqs", "64")
	return tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.Grid, Plan: plan, Objective: obj,
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8"), dim(t, "max-num-seqs=8,64")}}
}

func demoTarget(speed float64) tune.Demo {
	cfg := sim.DefaultConfig()
	cfg.Speed = speed
	return tune.Demo{Sim: cfg}
}

// TestDemoSweepSpeed runs a 4-variant demo sweep at speed 20 with 2 cells
// per variant: it must finish in under 2 minutes on the 2-core machine,
// and the sweep's own work per variant (everything but the server start
// and the benchmark run: building the variant, stopping the simulator,
// bookkeeping) must stay under a second.
func TestDemoSweepSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo sweep of several variants in real time (10 s or more): skipped with -short (make test runs it)")
	}
	start := time.Now()
	var reports int
	r := &tune.Runner{Spec: demoSpec(t), Target: demoTarget(20), Hardware: noGPU,
		Progress: func(p tune.Progress) {
			reports++
			if p.Variant < 1 || p.Variant > p.Variants || p.Variants != 4 || p.ETA < 0 {
				t.Errorf("progress %+v", p)
			}
		}}
	estimate := r.EstimateSweep()
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	if len(res.Variants) != 4 || reports < 12 {
		t.Fatalf("%d variants, %d progress reports", len(res.Variants), reports)
	}
	var overhead float64
	for _, v := range res.Variants {
		if v.Status != tune.Measured || len(v.Run.Cells) != 2 {
			t.Fatalf("%s: %s %s", v.Variant.Label(), v.Status, v.Error)
		}
		o := v.WallS - v.LoadS - v.MeasureS
		overhead += o
		t.Logf("%-40s load %.3f s, measure %.2f s, overhead %.3f s, score %s", v.Variant.Label(), v.LoadS, v.MeasureS, o,
			res.Spec.Objective.FormatScore(v.Score))
	}
	t.Logf("sweep wall %.1f s (estimated %.1f s), mean overhead per variant %.3f s; %s", wall.Seconds(), estimate.Seconds(), overhead/4, res.Verdict)
	if wall > 2*time.Minute {
		t.Errorf("a 4-variant sweep took %s, over 2 minutes", wall)
	}
	if overhead/4 >= 1 {
		t.Errorf("the sweep adds %.2f s per variant, over 1 s", overhead/4)
	}
}

// memHistory keeps the runs its observers see, as the history store does,
// so a second Runner can resume from it.
type memHistory struct {
	mu   sync.Mutex
	runs map[string]*rundoc.Run
}

func (h *memHistory) observe(tune.Variant) []rundoc.Observer {
	return []rundoc.Observer{rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventRunStarted || e.Kind == rundoc.EventRunDone {
			h.mu.Lock()
			h.runs[e.Run.UUID] = e.Run
			h.mu.Unlock()
		}
	})}
}

func (h *memHistory) tagged(_ context.Context, tag string) ([]*rundoc.Run, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*rundoc.Run
	for _, r := range h.runs {
		for _, t := range r.Tags {
			if t == tag {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// TestDemoSweepCancelThenResume: cancelling during the second variant
// keeps the first, marks the second cancelled and the rest not run; a
// resumed sweep skips the finished variant and measures the others.
func TestDemoSweepCancelThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo sweep of several variants in real time (10 s or more): skipped with -short (make test runs it)")
	}
	spec := demoSpec(t)
	hist := &memHistory{runs: map[string]*rundoc.Run{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	r := &tune.Runner{Spec: spec, Target: demoTarget(50), Hardware: noGPU, Observers: hist.observe, SpecDir: dir,
		Progress: func(p tune.Progress) {
			if p.Variant == 2 && p.Stage == "measuring" {
				cancel()
			}
		}}
	res, err := r.Run(ctx)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("err %v", err)
	}
	var got []tune.Status
	for _, v := range res.Variants {
		got = append(got, v.Status)
	}
	if len(got) != 4 || got[0] != tune.Measured || got[1] != tune.Cancelled || got[2] != tune.NotRun || got[3] != tune.NotRun {
		t.Fatalf("statuses after cancel %v", got)
	}
	if res.Variants[1].Error == "" {
		t.Fatal("the cancelled variant says nothing of why; its progress line would read \"cancelled: \"")
	}
	if tune.Finished(dir, spec.ID) {
		t.Error("a cancelled sweep is marked finished: reopened, it would show a verdict instead of Resume")
	}
	first := res.Variants[0].RunID
	// Recalled from the history, the stopped sweep is incomplete: one
	// variant measured, the rest not run, and nothing launched.
	if rec, complete, err := tune.Recall(context.Background(), spec, hist.tagged); err != nil || complete || rec.Variants[0].Status != tune.Measured || rec.Variants[1].Status != tune.NotRun {
		t.Errorf("Recall after the cancel: complete %v, err %v", complete, err)
	}

	var measured []string
	r2 := &tune.Runner{Spec: spec, Target: demoTarget(50), Hardware: noGPU, Observers: hist.observe, History: hist.tagged, SpecDir: dir,
		Progress: func(p tune.Progress) {
			if p.Stage == "launching" {
				measured = append(measured, p.Label)
			}
		}}
	res, err = r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(measured) != 3 || measured[0] == tune.BaseLabel {
		t.Errorf("resume measured %v", measured)
	}
	if !res.Variants[0].Resumed || res.Variants[0].RunID != first {
		t.Errorf("the finished variant was not taken from the history: %+v", res.Variants[0])
	}
	for _, v := range res.Variants {
		if v.Status != tune.Measured {
			t.Errorf("%s: %s", v.Variant.Label(), v.Status)
		}
	}
	if res.Verdict == "" {
		t.Error("no verdict")
	}
	// Issue 24 item 6: once every variant is in the history, Recall gives
	// the sweep's verdict without measuring anything.
	rec, complete, err := tune.Recall(context.Background(), spec, hist.tagged)
	if err != nil || !complete || rec.Verdict != res.Verdict {
		t.Errorf("Recall of the finished sweep: complete %v, err %v, verdict %q, want %q", complete, err, rec.Verdict, res.Verdict)
	}
	// Issue 41 minor 2: the sweep that ran to its end is marked finished,
	// so it stays finished when a run of it is deleted from the history.
	if !tune.Finished(dir, spec.ID) {
		t.Error("the sweep that ran to its end is not marked finished")
	}
}

// TestDemoTargetTakesVLLMFlags: the demo target parses the variant's vLLM
// flags into the simulator, and refuses a bad one as vLLM would.
func TestDemoTargetTakesVLLMFlags(t *testing.T) {
	d := demoTarget(7)
	cfg := vllm.LaunchConfig{}
	cfg.Set("--kv-cache-dtype", "fp8")
	cfg.Set("--max-num-seqs", "12")
	cfg.Set("--enable-prefix-caching", "false")
	o, err := d.Session(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if o.Sim.KVCacheDtype != "fp8" || o.Sim.MaxNumSeqs != 12 || o.Sim.EnablePrefixCaching || o.Sim.Speed != 7 {
		t.Errorf("sim config %+v", o.Sim)
	}
	mml, kv, ok := d.Facts(cfg)
	base, kvAuto, _ := d.Facts(vllm.LaunchConfig{})
	if !ok || mml != base || kv < 19*kvAuto/10 {
		t.Errorf("facts fp8 %d/%d vs auto %d/%d", mml, kv, base, kvAuto)
	}
	cfg.Extra = []string{"--no-such-flag"}
	if _, err := d.Session(cfg); err == nil {
		t.Error("an unknown flag was accepted")
	} else if s, _ := tune.Explain(err); s == "" {
		t.Error("no sentence for the refusal")
	}
}
