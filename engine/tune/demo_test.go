package tune_test

import (
	"context"
	"testing"

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

func TestDemoSweepSmoke(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{16384}, Concurrency: []int{8, 32}, DurationS: 10, MaxOutput: 512}
	obj, err := tune.ParseObjective("total-tok-s@16Kx32", plan)
	if err != nil {
		t.Fatal(err)
	}
	spec := tune.Spec{ID: tune.NewID(), Base: vllm.LaunchConfig{}, Mode: tune.Grid, Plan: plan, Objective: obj,
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8"), dim(t, "max-num-seqs=16,64")}}
	cfg := sim.DefaultConfig()
	cfg.Speed = 20
	r := &tune.Runner{Spec: spec, Target: tune.Demo{Sim: cfg}, Hardware: noGPU,
		Progress: func(p tune.Progress) {
			t.Logf("%d/%d %s %s %s eta %s", p.Variant, p.Variants, p.Stage, p.Label, p.Cell, p.ETA)
		}}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Variants {
		t.Logf("%-45s %s kv=%d score=%+v err=%s", v.Variant.Label(), v.Status, kv(v.Run), v.Score, v.Error)
		if v.Run != nil {
			for _, c := range v.Run.Cells {
				t.Logf("   %s %d×%d %s %.1f", c.Phase, c.Context, c.Concurrency, c.Status, c.TotalTokS)
			}
		}
	}
	t.Log(res.Verdict)
}

func kv(r *rundoc.Run) int {
	if r == nil {
		return 0
	}
	return r.Server.KVCapacityTokens
}
