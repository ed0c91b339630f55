package tune_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
)

// dockerTarget connects to the Docker daemon with a label unique to the
// test (another package's clean-up cannot remove its containers) and builds
// the simulator image. With CI=true a missing daemon fails the test;
// elsewhere it skips.
func dockerTarget(ctx context.Context, t *testing.T) (tune.Docker, *docker.Launcher) {
	t.Helper()
	label := dockertest.UniqueLabel()
	l := dockertest.Launcher(ctx, t, docker.WithoutGPU(), label)
	return tune.Docker{Launching: session.Launching{Options: []docker.Option{docker.WithoutGPU(), label, docker.WithPollInterval(100 * time.Millisecond)}},
		SimSpeed: 50, Startup: 2 * time.Second}, l
}

// TestDockerSweepFlagEffects sweeps --kv-cache-dtype × --max-num-seqs on
// the simulator image through the real Docker daemon: fp8 doubles the KV
// capacity, 16 seqs queue 32 streams while 64 run them, the objective picks
// the variant with the best figure, every run carries the sweep's tag, and
// no container is left behind.
func TestDockerSweepFlagEffects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	target, l := dockerTarget(ctx, t)
	base := simimage.Config("hf_tune_test_token", "--max-num-seqs", "64")
	// Speed 20, not the image's 50: the statuses this test asserts come from
	// streams in flight, and at 50 a loaded CI machine's pauses read as
	// queueing (1K×32 under fp8 once read 29.9 of 32 in flight).
	for i := range base.Extra {
		if base.Extra[i] == "--speed" && i+1 < len(base.Extra) {
			base.Extra[i+1] = "20"
		}
	}
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{32}, DurationS: 30, MaxOutput: 1024}
	obj, err := tune.ParseObjective("total-tok-s@1Kx32", plan)
	if err != nil {
		t.Fatal(err)
	}
	spec := tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.Grid, Plan: plan, Objective: obj,
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8"), dim(t, "max-num-seqs=16,64")}}
	tagged := map[string]bool{}
	r := &tune.Runner{Spec: spec, Target: target, Hardware: noGPU,
		Observers: func(v tune.Variant) []rundoc.Observer {
			return []rundoc.Observer{rundoc.ObserverFunc(func(e rundoc.Event) {
				if e.Kind == rundoc.EventRunStarted && len(e.Run.Tags) == 1 && e.Run.Tags[0] == tune.Tag(spec.ID) {
					tagged[v.Label()] = true
				}
			})}
		}}
	res, err := r.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 4 {
		t.Fatalf("%d variants", len(res.Variants))
	}
	kv := map[string]int{}
	for _, v := range res.Variants {
		if v.Status != tune.Measured || v.Run == nil || !v.Run.Simulated || v.Run.Launch == nil {
			t.Fatalf("%s: %s %s", v.Variant.Label(), v.Status, v.Error)
		}
		dtype, _ := v.Variant.Config.Get("--kv-cache-dtype")
		seqs, _ := v.Variant.Config.Get("--max-num-seqs")
		kv[dtype] = v.Run.Server.KVCapacityTokens
		c := v.Run.Find(rundoc.PhaseDecode, 1024, 32)
		want := map[string]rundoc.Status{"16": rundoc.StatusQueued, "64": rundoc.StatusValid}[seqs]
		if c == nil || c.Status != want {
			t.Errorf("%s: 1K×32 is %v, want %s", v.Variant.Label(), c, want)
		}
		if !tagged[v.Variant.Label()] {
			t.Errorf("%s: its run did not carry the tag %s", v.Variant.Label(), tune.Tag(spec.ID))
		}
		if !strings.Contains(v.Run.Launch.DockerCommand, "--max-num-seqs "+seqs) {
			t.Errorf("%s launched as %s", v.Variant.Label(), v.Run.Launch.DockerCommand)
		}
		t.Logf("%-40s KV %d, 1K×32 %s %.1f tok/s, load %.2f s, measure %.2f s, wall %.2f s", v.Variant.Label(), v.Run.Server.KVCapacityTokens,
			c.Status, c.TotalTokS, v.LoadS, v.MeasureS, v.WallS)
	}
	if ratio := float64(kv["fp8"]) / float64(kv[""]); math.Abs(ratio-2) > 0.05 {
		t.Errorf("fp8/auto KV capacity = %d/%d = %.3f, want ≈ 2", kv["fp8"], kv[""], ratio)
	}
	// The winner has the highest figure among the scored variants, or one
	// within the noise of the highest (ties keep the earlier variant).
	if res.Best < 0 {
		t.Fatalf("no best: %s", res.Verdict)
	}
	best := res.Variants[res.Best].Score
	for i, v := range res.Variants {
		if v.Score.OK && v.Score.Value > best.Value && !spec.Objective.Tie(v.Score, best) {
			t.Errorf("variant %d scores %.1f ± %.1f, above the best's %.1f ± %.1f", i, v.Score.Value, v.Score.CI95, best.Value, best.CI95)
		}
		if v.Score.OK {
			t.Logf("variant %d: %.1f ± %.1f tok/s", i+1, v.Score.Value, v.Score.CI95)
		}
		if seqs, _ := v.Variant.Config.Get("--max-num-seqs"); seqs == "16" && v.Score.OK {
			t.Errorf("%s queued at the objective's cell yet has a score", v.Variant.Label())
		}
	}
	t.Log(res.Verdict)
	if left, err := l.Managed(context.Background()); err != nil || len(left) != 0 {
		t.Errorf("%d containers left behind (%v)", len(left), err)
	}
}

// TestDockerSweepGoesOnAfterAFailure: a variant whose server cannot start
// is recorded with vLLM's start-up sentence and fix, and the next variant
// is measured.
func TestDockerSweepGoesOnAfterAFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	target, l := dockerTarget(ctx, t)
	base := simimage.Config("hf_tune_test_token", "--max-model-len", "32768")
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 512}
	obj, _ := tune.ParseObjective("total-tok-s", plan)
	spec := tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.OneAtATime, Plan: plan, Objective: obj,
		Dimensions: []tune.Dimension{dim(t, "gpu-memory-utilization=0.3,0.85")}}
	res, err := (&tune.Runner{Spec: spec, Target: target, Hardware: noGPU}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range res.Variants {
		got = append(got, string(v.Status))
	}
	if strings.Join(got, ",") != "measured,failed to start,measured" {
		t.Fatalf("statuses %v", got)
	}
	failed := res.Variants[1]
	if failed.Error == "" || !strings.Contains(failed.Fix, "--gpu-memory-utilization") || failed.RunID != "" {
		t.Errorf("failure recorded as %q / %q (run %q)", failed.Error, failed.Fix, failed.RunID)
	}
	if res.Variants[1].Score.OK || !res.Variants[2].Score.OK {
		t.Errorf("scores %+v %+v", res.Variants[1].Score, res.Variants[2].Score)
	}
	doc := res.Document()
	if doc.Variants[1].Error != failed.Error || doc.Variants[1].Score != nil {
		t.Errorf("the document lost the failure: %+v", doc.Variants[1])
	}
	t.Logf("failure: %s: %s; verdict: %s", failed.Error, failed.Fix, res.Verdict)
	if left, err := l.Managed(context.Background()); err != nil || len(left) != 0 {
		t.Errorf("%d containers left behind (%v)", len(left), err)
	}
}

// TestDockerSweepCompileCache: a sweep whose variants share their compiled
// graphs (the memory share changes none of them) starts its second variant
// measurably faster with the compile cache folder mounted than without:
// the simulator image, like vLLM, finds the first variant's graphs in the
// mounted folder and skips most of the compile, while without the folder
// every container compiles afresh in its own layer. Each start's load_s
// and vLLM's split of it reach the run document.
func TestDockerSweepCompileCache(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	target, l := dockerTarget(ctx, t)
	const speed = 20 // the image's 50 leaves the gain (≈ 37 s simulated) under a second
	target.SimSpeed = speed
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{1}, DurationS: 20, MaxOutput: 256}
	obj, err := tune.ParseObjective("total-tok-s", plan)
	if err != nil {
		t.Fatal(err)
	}
	sweep := func(cache string) []*rundoc.Startup {
		base := simimage.Config("hf_tune_test_token")
		base.Extra = []string{"--speed", fmt.Sprint(speed)}
		base.CompileCache = cache
		spec := tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.Grid, Plan: plan, Objective: obj,
			Dimensions: []tune.Dimension{dim(t, "gpu-memory-utilization=0.9,0.85")}}
		res, err := (&tune.Runner{Spec: spec, Target: target, Hardware: noGPU}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []*rundoc.Startup
		for _, v := range res.Variants {
			if v.Status != tune.Measured || v.Run == nil || v.Run.Launch == nil || v.Run.Launch.Startup == nil {
				t.Fatalf("%s: %s %s (no start-up record)", v.Variant.Label(), v.Status, v.Error)
			}
			st := v.Run.Launch.Startup
			if v.Run.Launch.CompileCache != cache || strings.Contains(v.Run.Launch.DockerCommand, ":/root/.cache/vllm") != (cache != "") {
				t.Errorf("%s: the record says compile cache %q, launched as %s", v.Variant.Label(), v.Run.Launch.CompileCache, v.Run.Launch.DockerCommand)
			}
			t.Logf("cache %-5v %-32s load %.2f s (variant %.2f s): weights %.1f, compile %.1f, graphs %.1f simulated s, hit %v",
				cache != "", v.Variant.Label(), st.LoadS, v.LoadS, st.WeightsS, st.CompileS, st.GraphCaptureS, st.CompileCacheHit)
			out = append(out, st)
		}
		if len(out) != 2 {
			t.Fatalf("%d variants", len(out))
		}
		// The sweep's table (CLI, Markdown, HTML, the app) shows each start.
		header, rows := res.Document().Table()
		if header[4] != "start-up" || rows[1][4] != out[1].Text() || strings.Contains(rows[1][4], "cached") != (cache != "") {
			t.Errorf("table %q: second row %q, want %q", header, rows[1], out[1].Text())
		}
		return out
	}
	with := sweep(t.TempDir())
	without := sweep("")
	if with[0].CompileCacheHit || !with[1].CompileCacheHit || without[0].CompileCacheHit || without[1].CompileCacheHit {
		t.Errorf("cache hits: with the folder %v, %v; without %v, %v; want only the second start with the folder",
			with[0].CompileCacheHit, with[1].CompileCacheHit, without[0].CompileCacheHit, without[1].CompileCacheHit)
	}
	if with[1].CompileS >= with[0].CompileS/2 || without[1].CompileS != without[0].CompileS {
		t.Errorf("compile: with the folder %.1f then %.1f s, without %.1f then %.1f s", with[0].CompileS, with[1].CompileS,
			without[0].CompileS, without[1].CompileS)
	}
	// The saving the log claims, in real seconds at this speed; the wall
	// clock must show at least half of it (the rest is room for a loaded
	// machine's pauses, which hit both starts alike).
	saved := (with[0].CompileS - with[1].CompileS) / speed
	gain := without[1].LoadS - with[1].LoadS
	t.Logf("second start: %.2f s with the folder, %.2f s without: %.2f s faster (%.0f%%); the log claims %.2f s",
		with[1].LoadS, without[1].LoadS, gain, 100*gain/without[1].LoadS, saved)
	if gain < saved/2 {
		t.Errorf("the second start with the folder took %.2f s, without %.2f s: want at least %.2f s faster", with[1].LoadS, without[1].LoadS, saved/2)
	}
	if left, err := l.Managed(context.Background()); err != nil || len(left) != 0 {
		t.Errorf("%d containers left behind (%v)", len(left), err)
	}
}
