package session_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

var tinyPlan = rundoc.Plan{Contexts: []int{0, 512}, Concurrency: []int{1, 4}, PrefillContexts: []int{1024},
	DurationS: 5, MaxOutput: 128} // 0.5 s real at speed 10

// noGPU is the snapshot of a machine without a GPU, so tests do not wait on
// hardware detection.
var noGPU = &hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "test machine"}

func TestDemoSession(t *testing.T) {
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed = p, 10
	var events int
	var logs []string
	run, err := session.Run(context.Background(), session.Options{
		Kind: session.Demo, Sim: cfg, Plan: tinyPlan, Name: "demo", Hardware: noGPU,
		Observers: []rundoc.Observer{rundoc.ObserverFunc(func(rundoc.Event) { events++ })},
		Log:       func(l string) { logs = append(logs, l) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Simulated || run.Name != "demo" || run.Hardware != noGPU || len(run.Cells) != 5 || events == 0 {
		t.Errorf("run simulated=%v name=%q cells=%d events=%d", run.Simulated, run.Name, len(run.Cells), events)
	}
	if len(logs) == 0 || !strings.Contains(logs[0], "simulated vLLM server on http://127.0.0.1:") {
		t.Errorf("logs %q", logs)
	}
}

// TestDemoMaxNumSeqs is issue 30 item 1 for vLLM: where RigBench knows
// --max-num-seqs (here the demo's 2), the run records it as the server's
// slots, the plan check counts only the 2 running requests' KV (0 × 4 fits
// a cache of 2 × (0 + 64) + a little, which 4 requests would not), and the
// cell with 4 streams runs Requests queued.
func TestDemoMaxNumSeqs(t *testing.T) {
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed, cfg.MaxNumSeqs = p, 20, 2
	f, err := session.DemoFacts(cfg)
	if err != nil || f.Slots != 2 {
		t.Fatalf("demo facts %+v, %v; want 2 slots", f, err)
	}
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2, 4}, DurationS: 5, MaxOutput: 64, KVCapacityOverride: 200}
	if preview := session.Predict(plan, f); len(preview.Cells) != 0 {
		t.Errorf("predicted %+v; 4 requests on 2 slots hold only 2 × 64 tokens", preview.Cells)
	}
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: noGPU})
	if err != nil {
		t.Fatal(err)
	}
	if run.Server.Slots != 2 {
		t.Errorf("server slots %d, want the demo's --max-num-seqs 2", run.Server.Slots)
	}
	if c := run.Find(rundoc.PhaseDecode, 0, 4); c == nil || c.Status != rundoc.StatusQueued || !strings.Contains(c.Reason, "runs 2 requests at once") {
		t.Errorf("0 × 4 on max_num_seqs 2: %+v, want Requests queued", c)
	}
}

// TestLaunchSession launches the simulator image through the real Docker
// daemon, runs a tiny benchmark through it, and checks that the run records
// the launch without secrets and that no container is left behind.
func TestLaunchSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label := simImage(ctx, t)

	const hfToken = "hf_session_secret_token"
	img, tag, _ := strings.Cut(simimage.DefaultTag, ":")
	cfg := vllm.LaunchConfig{Image: img, Tag: tag, Model: "sim/tiny", GPUs: "all",
		TokenSource: vllm.TokenInline, HFToken: hfToken, Extra: []string{"--profile", "tiny", "--speed", "10"}}
	var logs bytes.Buffer
	launcher := &session.DockerLauncher{Config: cfg, Options: []docker.Option{docker.WithoutGPU(), label,
		docker.WithPollInterval(100 * time.Millisecond)}}
	run, err := session.Run(ctx, session.Options{Kind: session.Launch, Launcher: launcher, Plan: tinyPlan,
		Hardware: noGPU, Log: func(s string) { logs.WriteString(s + "\n") }})
	if err != nil {
		t.Fatalf("run: %v\nlogs:\n%s", err, logs.String())
	}
	if run.Launch == nil || run.Launch.Model != "sim/tiny" || !strings.Contains(run.Launch.DockerCommand, "docker run") {
		t.Errorf("launch record %+v", run.Launch)
	}
	if run.Server.KVCapacityTokens == 0 || len(run.Cells) != 5 {
		t.Errorf("server %+v, %d cells", run.Server, len(run.Cells))
	}
	for _, c := range run.Cells {
		if !c.Status.Ran() && c.Status != rundoc.StatusOverCapacity {
			t.Errorf("cell %s %d×%d: %s %s", c.Phase, c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	var doc bytes.Buffer
	if err := rundoc.WriteRun(&doc, run); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.String(), hfToken) || strings.Contains(logs.String(), hfToken) {
		t.Error("the Hugging Face token leaked into the run document or the logs")
	}
	if !strings.Contains(logs.String(), "GPU KV cache size") {
		t.Errorf("container logs did not reach the session log:\n%s", logs.String())
	}
	left, err := l.Managed(context.Background())
	if err != nil || len(left) != 0 {
		t.Errorf("%d containers left behind (%v)", len(left), err)
	}
}

// TestLaunchFailureIsExplained: a max model length above the KV cache comes
// back as vLLM's typed start-up error with the suggested value.
func TestLaunchFailureIsExplained(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label := simImage(ctx, t)
	img, tag, _ := strings.Cut(simimage.DefaultTag, ":")
	// The default profile's 12 GB card at 75% memory cannot hold one
	// request of the model's full 262,144 tokens.
	cfg := vllm.LaunchConfig{Image: img, Tag: tag, Model: "sim/default", GPUs: "all"}
	cfg.Set("--max-model-len", "262144")
	cfg.Set("--gpu-memory-utilization", "0.75")
	_, err := session.Run(ctx, session.Options{Kind: session.Launch, Plan: tinyPlan, Hardware: noGPU,
		Launcher: &session.DockerLauncher{Config: cfg, Options: []docker.Option{docker.WithoutGPU(), label}}})
	var se *vllm.StartupError
	if !errors.As(err, &se) || se.SuggestedMaxModelLen <= 0 || se.SuggestedMaxModelLen >= 262144 ||
		!strings.Contains(err.Error(), "--max-model-len") {
		t.Fatalf("err = %v, want a *vllm.StartupError suggesting a shorter --max-model-len", err)
	}
	t.Logf("explained as: %v", err)
	if left, _ := l.Managed(context.Background()); len(left) != 0 {
		t.Errorf("%d containers left behind", len(left))
	}
}

// simImage connects to the Docker daemon with a label unique to the test
// (so another package's clean-up cannot remove its containers, and its own
// leftover check sees only its own) and builds the simulator image. With
// CI=true a missing daemon fails the test; elsewhere it skips.
func simImage(ctx context.Context, t *testing.T) (*docker.Launcher, docker.Option) {
	t.Helper()
	label := dockertest.UniqueLabel()
	l := dockertest.Launcher(ctx, t, docker.WithoutGPU(), label)
	return l, label
}

// A reused server reaches the session with the same address and facts, and
// the session's stop at the end leaves it running for its owner.
func TestReuseLeavesServerRunning(t *testing.T) {
	stopped := 0
	rec := &rundoc.Launch{Model: "m"}
	srv := &session.Server{Endpoint: "http://127.0.0.1:1", APIKey: "k", KVCapacity: 42, Record: rec,
		Stop: func(context.Context) error { stopped++; return nil }}
	got, err := srv.Reuse().Launch(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Endpoint != srv.Endpoint || got.APIKey != "k" || got.KVCapacity != 42 || got.Record != rec {
		t.Errorf("reused server %+v differs from %+v", got, srv)
	}
	if err := got.Stop(context.Background()); err != nil || stopped != 0 {
		t.Errorf("stop of the reused server: err %v, owner's stop called %d times", err, stopped)
	}
	if err := srv.Stop(context.Background()); err != nil || stopped != 1 {
		t.Errorf("the owner's stop was replaced: called %d times", stopped)
	}
}

// A plan no cell of which fits the server stops at the run's start when
// asked: no observer hears of the run (only of the probes before it), and the error says which limit and the
// value that would run, in the plan's terms.
func TestStopWhenNothingRuns(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Profile, _ = sim.ProfileByName("tiny")
	cfg.Speed = 20
	events := 0
	_, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Hardware: noGPU,
		Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 4}, MaxOutput: 8192, DurationS: 5},
		Observers: []rundoc.Observer{rundoc.ObserverFunc(func(e rundoc.Event) {
			if e.Kind != rundoc.EventRunProgress {
				events++
			}
		})},
		StopWhenNothingRuns: true})
	var nothing *session.NothingRunsError
	if !errors.As(err, &nothing) || nothing.Why != session.OutputFillsModel || nothing.Suggest != 1024 || events != 0 {
		t.Fatalf("err %v (%+v), %d events; want OutputFillsModel suggesting 1024 and no event", err, nothing, events)
	}
	if want := "a max output of 8192 leaves no room in max_model_len 2048: use a max output of 1024 or less"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// DemoFacts are what the demo's simulator reports once started, computed
// without starting it; the plan preview from them predicts the cells the
// run skips.
func TestDemoFactsPredict(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Profile, _ = sim.ProfileByName("tiny")
	f, err := session.DemoFacts(cfg)
	if err != nil || f.MaxModelLen != 2048 || f.KVCapacity <= 0 || f.Speed != 1 {
		t.Fatalf("facts %+v, %v", f, err)
	}
	p := rundoc.Plan{Contexts: []int{0, 1024, 4096}, Concurrency: []int{1, 64}, MaxOutput: 512, DurationS: 5}
	preview := session.Predict(p, f)
	if preview.Find(rundoc.PhaseDecode, 4096, 1) == nil || preview.Find(rundoc.PhaseDecode, 0, 1) != nil {
		t.Errorf("preview cells %+v: want 4K predicted too long and 0×1 to run", preview.Cells)
	}
	if _, runnable := session.Estimate(preview, f, nil); runnable == 0 || runnable >= 6 {
		t.Errorf("%d runnable cells of 6", runnable)
	}
}

// A daemon that is not there is a status with the cause, not a hang: the
// front ends word it.
func TestCheckDockerMissingDaemon(t *testing.T) {
	st := session.CheckDocker(context.Background(), false, docker.WithHost("unix://"+t.TempDir()+"/no-docker.sock"))
	var de *docker.Error
	if st.Available() || !errors.As(st.Err, &de) || de.Hint == "" {
		t.Errorf("status %+v, want unavailable with engine/docker's cause and hint", st)
	}
}

// TestDetectHardware: the one detection a run and a sweep both use gives
// this machine's CPU, and either its GPUs or the reason there are none.
func TestDetectHardware(t *testing.T) {
	snap := session.DetectHardware(context.Background())
	if snap.CPU.LogicalCores <= 0 {
		t.Errorf("CPU %+v", snap.CPU)
	}
	if len(snap.GPUs) == 0 && snap.GPUAbsentReason == "" {
		t.Error("no GPUs and no reason")
	}
}

// TestLaunchedServerDiesMidRun (issue 29): the launched simulator's
// container is killed (docker kill) in the window of decode 0×1. The run
// ends at once with the container's exit code in its sentence, the cell is
// Failed with the moment, and nothing is left behind.
func TestLaunchedServerDiesMidRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label := simImage(ctx, t)
	img, tag, _ := strings.Cut(simimage.DefaultTag, ":")
	cfg := vllm.LaunchConfig{Image: img, Tag: tag, Model: "sim/tiny", GPUs: "all",
		Extra: []string{"--profile", "tiny", "--speed", "10"}}
	launcher := &session.DockerLauncher{Config: cfg, Options: []docker.Option{docker.WithoutGPU(), label,
		docker.WithPollInterval(100 * time.Millisecond)}}
	var (
		killedAt time.Time
		killErr  error
	)
	kill := rundoc.ObserverFunc(func(e rundoc.Event) {
		if !killedAt.IsZero() || e.Kind != rundoc.EventCellProgress || e.Index != 1 || e.LiveTokS <= 0 {
			return
		}
		killedAt = time.Now()
		left, err := l.Managed(ctx)
		if err != nil || len(left) != 1 {
			killErr = fmt.Errorf("%d containers (%v)", len(left), err)
			return
		}
		if out, err := exec.CommandContext(ctx, "docker", "kill", left[0].ID).CombinedOutput(); err != nil {
			killErr = fmt.Errorf("docker kill: %v: %s", err, out)
		}
	})
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2, 4}, PrefillContexts: []int{512}, DurationS: 20, MaxOutput: 64}
	run, err := session.Run(ctx, session.Options{Kind: session.Launch, Launcher: launcher, Plan: plan,
		Hardware: noGPU, Observers: []rundoc.Observer{kill}})
	took := time.Since(killedAt)
	if killedAt.IsZero() || killErr != nil {
		t.Fatalf("the kill did not happen: %v (run: %v)", killErr, err)
	}
	var gone *bench.ServerGoneError
	var ex *bench.ExitedError
	if !errors.As(err, &gone) || !errors.As(err, &ex) || !strings.Contains(ex.Report, "exit code 137") {
		t.Fatalf("err = %v, want a ServerGoneError naming the container's exit code 137", err)
	}
	t.Logf("%v (%v after the kill)", err, took)
	if took > 5*time.Second {
		t.Errorf("the run ended %v after the kill, want within 5 s", took)
	}
	if len(run.Cells) != 2 || run.Cells[1].Status != rundoc.StatusFailed || !strings.Contains(run.Cells[1].Reason, "into the window") {
		t.Errorf("cells %+v, want prefill then decode 0×1 Failed with its moment", run.Cells)
	}
	if left, _ := l.Managed(context.Background()); len(left) != 0 {
		t.Errorf("%d containers left behind", len(left))
	}
}
