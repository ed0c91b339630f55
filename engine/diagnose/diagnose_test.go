package diagnose_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
)

// noGPU keeps hardware detection out of the demo runs.
var noGPU = &hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "test machine"}

// demoRun runs plan on the simulator's tiny profile with --max-num-seqs
// slots (0: the profile's default).
func demoRun(t *testing.T, plan rundoc.Plan, slots int) *rundoc.Run {
	t.Helper()
	cfg := sim.DefaultConfig()
	p, err := sim.ProfileByName("tiny")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profile, cfg.Speed = p, 20
	if slots > 0 {
		cfg.MaxNumSeqs = slots
	}
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: noGPU, NoTelemetry: true})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestQueueBoundAdvisesMaxNumSeqs is issue 26's "a demo run that queues
// gets the queue bottleneck and the --max-num-seqs advice": 4 streams on a
// server that runs 2 at once wait, with the server's own gauges as the
// evidence, and raising --max-num-seqs to 4 is predicted to stop it.
func TestQueueBoundAdvisesMaxNumSeqs(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2, 4}, DurationS: 5, MaxOutput: 64}
	run := demoRun(t, plan, 2)
	c := run.Find(rundoc.PhaseDecode, 0, 4)
	b := diagnose.Cell(run, c)
	if len(b) == 0 || b[0].Kind != diagnose.Queue || !strings.Contains(b[0].Evidence, "running 2 = --max-num-seqs") {
		t.Fatalf("0×4 on 2 slots: bottlenecks %+v, want queue-bound with the server's running 2 as evidence", b)
	}
	if b := diagnose.Cell(run, run.Find(rundoc.PhaseDecode, 0, 2)); slices.ContainsFunc(b, func(b diagnose.Bottleneck) bool { return b.Kind == diagnose.Queue }) {
		t.Errorf("0×2 on 2 slots is not queued: %+v", b)
	}
	advice := diagnose.Advise(run)
	i := slices.IndexFunc(advice, func(a diagnose.Advice) bool { return a.Flag == "--max-num-seqs" })
	if i < 0 {
		t.Fatalf("advice %+v, want --max-num-seqs", advice)
	}
	a := advice[i]
	if want := "--max-num-seqs 4: 0×4 would stop queueing"; a.Text() != want || a.Moves != diagnose.Queue {
		t.Errorf("advice %q, want %q", a.Text(), want)
	}
	if slices.ContainsFunc(advice, func(a diagnose.Advice) bool { return a.Flag == "--kv-cache-dtype" }) {
		t.Errorf("advice %+v: nothing was over capacity, so no KV dtype", advice)
	}
}

// TestOverCapacityAdvisesKVDtype is issue 26's "a run with over-capacity
// cells gets the KV-dtype advice": 4 × (1K + 64) tokens do not fit the tiny
// card's 3,264, and an 8-bit cache's 6,528 would hold them.
func TestOverCapacityAdvisesKVDtype(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{1, 4}, DurationS: 5, MaxOutput: 64}
	run := demoRun(t, plan, 0)
	c := run.Find(rundoc.PhaseDecode, 1024, 4)
	if c == nil || c.Status != rundoc.StatusOverCapacity {
		t.Fatalf("1K×4 on 3,264 tokens: %+v, want Over capacity", c)
	}
	b := diagnose.Cell(run, c)
	if len(b) == 0 || b[0].Kind != diagnose.Capacity || b[0].Evidence != "needs 4 × (1K + 64) = 4,352 tokens of KV cache, the cache holds 3,264 tokens" {
		t.Fatalf("bottlenecks %+v, want capacity-bound needing 4 × 1088 tokens", b)
	}
	advice := diagnose.Advise(run)
	var texts []string
	for _, a := range advice {
		texts = append(texts, a.Text())
	}
	want := []string{
		"--kv-cache-dtype fp8: KV capacity 3,264 tokens → 6,528 tokens; 1K×4 would fit; it can change the model's answers, so `rigbench-cli tune --from-advice` checks quality too (--quality agreement)",
		"--max-model-len frees nothing: the KV cache, not the length, limits 1K×4",
	}
	if !slices.Equal(texts, want) {
		t.Errorf("advice\n got %q\nwant %q", texts, want)
	}
	if got := advice[0].Args(); !slices.Equal(got, []string{"--kv-cache-dtype", "fp8"}) {
		t.Errorf("args %q", got)
	}
}

// TestNoAdviceWithoutEvidence: an endpoint's run, whose flags RigBench
// does not know, gets no launch advice even where cells were over
// capacity (its cache may be 8-bit already), and a run whose cells all
// ran clean gets none at all.
func TestNoAdviceWithoutEvidence(t *testing.T) {
	run := &rundoc.Run{Plan: rundoc.Plan{MaxOutput: 64}, Server: rundoc.Server{KVCapacityTokens: 3264},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 1024, Concurrency: 4, Status: rundoc.StatusOverCapacity}}}
	if a := diagnose.Advise(run); len(a) != 0 {
		t.Errorf("endpoint: advice %+v, want none", a)
	}
	queued := &rundoc.Run{Simulated: true, Plan: rundoc.Plan{MaxOutput: 64}, Server: rundoc.Server{KVCapacityTokens: 3264, ServerFacts: rundoc.ServerFacts{Slots: 2}},
		Launch: &rundoc.Launch{Args: []string{"--max-num-seqs", "2", "--max-num-batched-tokens", "2"}},
		Cells:  []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 4, Status: rundoc.StatusQueued, TotalTokS: 100, MeasuredS: 5}}}
	if a := diagnose.Advise(queued); len(a) != 0 {
		t.Errorf("--max-num-batched-tokens 2 forbids --max-num-seqs 4: advice %+v, want none", a)
	}
	clean := &rundoc.Run{Simulated: true, Plan: rundoc.Plan{MaxOutput: 64}, Server: rundoc.Server{KVCapacityTokens: 3264, ServerFacts: rundoc.ServerFacts{Slots: 8}},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 100, MeasuredS: 5}}}
	if a := diagnose.Advise(clean); len(a) != 0 {
		t.Errorf("clean run: advice %+v, want none", a)
	}
}

// TestPowerAndBandwidth: a cell reading 70% of the roofline under the
// power cap is bandwidth-bound and power-limited, and the run gets the
// note that a lower cap would cost little.
func TestPowerAndBandwidth(t *testing.T) {
	run := &rundoc.Run{
		Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{PowerLimitW: 170}}},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50, MeasuredS: 30,
			RooflinePct: 70, GPUStats: &hardware.GPUStats{PowerMeanW: 168, Throttled: []string{hardware.ThrottlePowerCap}}}},
	}
	b := diagnose.Cell(run, &run.Cells[0])
	if len(b) != 2 || b[0].Kind != diagnose.Power || b[1].Kind != diagnose.Bandwidth || b[1].Evidence != "reads 70 % of the peak memory bandwidth" {
		t.Fatalf("bottlenecks %+v", b)
	}
	a := diagnose.Advise(run)
	if len(a) != 2 || a[0].Text() != "power-capped at 170 W while bandwidth-bound: a lower cap would cost little" ||
		a[1].Moves != diagnose.Bandwidth || a[1].Flag != "" || !strings.HasPrefix(a[1].Text(), "0×1 is bandwidth-bound: no launch flag RigBench can predict moves it") {
		t.Errorf("advice %+v", a)
	}
}

// Issue 41 minor 3: cells whose limit no launch flag RigBench predicts
// moves (bandwidth, the front end) get a note saying so and what does,
// with no flag (so no Tune), naming at most three cells; a run without
// such cells gets none.
func TestBoundCellsSayNoFlagMovesThem(t *testing.T) {
	prefill := rundoc.Cell{Phase: rundoc.PhasePrefill, Context: 1024, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 8192}
	run := &rundoc.Run{Cells: []rundoc.Cell{prefill,
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50, MeasuredS: 30, RooflinePct: 80},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusValid, TotalTokS: 95, MeasuredS: 30, RooflinePct: 78},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 180, MeasuredS: 30, RooflinePct: 75},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 8, Status: rundoc.StatusValid, TotalTokS: 330, MeasuredS: 30, RooflinePct: 70},
		{Phase: rundoc.PhaseDecode, Context: 1024, Concurrency: 4, Status: rundoc.StatusValid, TotalTokS: 200, MeasuredS: 30, TTFTMs: 4000},
	}}
	notes := map[diagnose.Kind]string{}
	for _, a := range diagnose.Advise(run) {
		if a.Flag != "" || len(a.Args()) != 0 {
			t.Errorf("advice %q names a flag", a.Text())
		}
		notes[a.Moves] = a.Text()
	}
	if want := "0×1, 0×2, 0×4 and 1 more are bandwidth-bound: no launch flag RigBench can predict moves them; fewer bytes per token"; !strings.HasPrefix(notes[diagnose.Bandwidth], want) {
		t.Errorf("bandwidth note %q, want it to begin %q", notes[diagnose.Bandwidth], want)
	}
	if want := "1K×4 is front-end-bound: no launch flag RigBench can predict moves it;"; !strings.HasPrefix(notes[diagnose.FrontEnd], want) {
		t.Errorf("front-end note %q, want it to begin %q", notes[diagnose.FrontEnd], want)
	}
	clean := &rundoc.Run{Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50, MeasuredS: 30, RooflinePct: 40}}}
	if a := diagnose.Advise(clean); len(a) != 0 {
		t.Errorf("a cell at 40%% of the roofline got %+v", a)
	}
}

// A window in which RigBench kept the machine's cores busy names the
// client as a limit, with the share as evidence; a share below
// ClientBoundPct, or none measured (the demo), names nothing.
func TestClientBound(t *testing.T) {
	for _, tc := range []struct {
		pct  float64
		want bool
	}{{96, true}, {diagnose.ClientBoundPct, true}, {60, false}, {0, false}} {
		c := rundoc.Cell{Phase: rundoc.PhaseDecode, Concurrency: 64, Status: rundoc.StatusValid, TotalTokS: 900, MeasuredS: 30}
		c.ClientCPUPct = tc.pct
		run := &rundoc.Run{Cells: []rundoc.Cell{c}}
		b := diagnose.Cell(run, &run.Cells[0])
		got := len(b) == 1 && b[0].Kind == diagnose.Client
		if got != tc.want {
			t.Errorf("client share %.0f%%: bottlenecks %+v, want client-bound: %v", tc.pct, b, tc.want)
		}
		if got && !strings.Contains(b[0].Text(), fmt.Sprintf("client-bound (RigBench used %.0f%% of this machine's CPU", tc.pct)) {
			t.Errorf("text %q", b[0].Text())
		}
	}
}

// A TTFT far beyond what the server's own prompt rate explains is
// request handling: front-end-bound, with both figures as evidence. A
// TTFT the prompts explain, a short one, or a queued cell's is not.
func TestTTFTBeyondPrefillIsFrontEnd(t *testing.T) {
	prefill := rundoc.Cell{Phase: rundoc.PhasePrefill, Context: 1024, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 8192}
	for _, tc := range []struct {
		ttft   float64
		status rundoc.Status
		want   bool
	}{{4000, rundoc.StatusValid, true}, {900, rundoc.StatusValid, false}, {1500, rundoc.StatusValid, false}, {4000, rundoc.StatusQueued, false}} {
		// 4 prompts of 1K at 8192 tok/s: at most 500 ms.
		c := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 1024, Concurrency: 4, Status: tc.status, TotalTokS: 200, MeasuredS: 30, TTFTMs: tc.ttft}
		run := &rundoc.Run{Cells: []rundoc.Cell{prefill, c}}
		var front *diagnose.Bottleneck
		for _, b := range diagnose.Cell(run, &run.Cells[1]) {
			if b.Kind == diagnose.FrontEnd {
				front = &b
			}
		}
		if (front != nil) != tc.want {
			t.Errorf("TTFT %.0f ms (%s): front-end-bound %v, want %v", tc.ttft, tc.status, front, tc.want)
		}
		if front != nil && front.Evidence != "TTFT 4000 ms, where the server's prompt rate (8192 tok/s at 1K) explains at most 500 ms for 4 prompts of 1K tokens: request handling, not prefill, took the time" {
			t.Errorf("evidence %q", front.Evidence)
		}
	}
}

// TestQueueNamesTheServersSetting is issue 35's "queue-bound (waiting 4,
// running 4 = --max-num-seqs) on llama-server": 4 streams on a server
// that runs 2 at once name the setting the server is started with,
// llama-server's -np/--parallel and SGLang's --max-running-requests, in
// the evidence and in the advice, which is a note in the server's terms
// (RigBench launches and sweeps only vLLM's flags) predicting 0×4 to stop
// queueing.
func TestQueueNamesTheServersSetting(t *testing.T) {
	for _, tc := range []struct {
		personality sim.Personality
		setting     string
		advice      string
	}{
		// llama-server divides -c among its slots: the tiny run's 2 slots of
		// -c 8192 are 4096 tokens each.
		{sim.PersonalityLlama, "-np/--parallel", "-np/--parallel 4: 0×4 would stop queueing; without -kvu each slot gets -c ÷ 4 tokens, so raise -c to 16384 to keep 4096 per slot"},
		{sim.PersonalitySGLang, "--max-running-requests", "--max-running-requests 4: 0×4 would stop queueing"},
	} {
		t.Run(string(tc.personality), func(t *testing.T) {
			cfg := sim.DefaultConfig()
			p, err := sim.ProfileByName("tiny")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Profile, cfg.Speed, cfg.Personality = p, 20, tc.personality
			cfg.MaxNumSeqs, cfg.Llama = 2, sim.LlamaSettings{Slots: 2, CtxSize: 8192}
			// An endpoint, not the demo: the slots must come from the
			// server's own answers (llama-server's /props total_slots,
			// SGLang's /get_server_info max_running_requests), not from
			// flags RigBench started it with.
			srv, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(func() { srv.Close(); hs.Close() })
			plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{2, 4}, DurationS: 5, MaxOutput: 64}
			run, err := session.Run(context.Background(), session.Options{Kind: session.Endpoint, Endpoint: hs.URL, Plan: plan, Hardware: noGPU, NoTelemetry: true})
			if err != nil {
				t.Fatal(err)
			}
			if run.Server.Personality != string(tc.personality) || run.Server.Slots != 2 {
				t.Fatalf("server %q with %d slots, want %s with 2", run.Server.Personality, run.Server.Slots, tc.personality)
			}
			b := diagnose.Cell(run, run.Find(rundoc.PhaseDecode, 0, 4))
			if len(b) == 0 || b[0].Kind != diagnose.Queue || !strings.Contains(b[0].Evidence, "2 = "+tc.setting) || strings.Contains(b[0].Text(), "--max-num-seqs") {
				t.Fatalf("0×4 on 2 slots: %+v, want queue-bound naming %s", b, tc.setting)
			}
			advice := diagnose.Advise(run)
			var texts []string
			for _, a := range advice {
				texts = append(texts, a.Text())
				if a.Flag != "" {
					t.Errorf("advice %q: a %s setting is not a vLLM flag to sweep", a.Text(), tc.personality)
				}
			}
			if !slices.Contains(texts, tc.advice) {
				t.Errorf("advice %q, want %q", texts, tc.advice)
			}
		})
	}
}

// TestStalledCellIsNotCapacityBound is issue 35's "the diagnosis says
// capacity-bound although the KV model says 2 × 64 tokens fit": a cell
// whose server stopped producing tokens is Failed, which names no limit,
// and an older run's "Over capacity: the server produced no output in the
// window" (a frozen server read as capacity), with the cell not run after
// it, is no capacity evidence either: no capacity bottleneck, no KV-dtype
// advice. A refusal's Over capacity still is.
func TestStalledCellIsNotCapacityBound(t *testing.T) {
	run := &rundoc.Run{Simulated: true, Plan: rundoc.Plan{MaxOutput: 64}, Server: rundoc.Server{KVCapacityTokens: 3264},
		Launch: &rundoc.Launch{Args: []string{"--kv-cache-dtype", "auto"}},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 100, MeasuredS: 5},
			{Phase: rundoc.PhaseDecode, Concurrency: 2, Status: rundoc.StatusFailed,
				Reason: "the server stopped producing tokens 4.1 s into the window: no token came for 5 s although 2 × (0 + 64) tokens fit the KV capacity of 3,264 tokens, and the server showed no sign of a full KV cache"},
			{Phase: rundoc.PhaseDecode, Context: 512, Concurrency: 2, Status: rundoc.StatusOverCapacity, Reason: "the server produced no output in the window"},
			{Phase: rundoc.PhaseDecode, Context: 512, Concurrency: 4, Status: rundoc.StatusOverCapacity,
				Reason: "not run: concurrency 2 at this context already produced no output"},
		}}
	for _, b := range diagnose.Run(run) {
		if b.Kind == diagnose.Capacity {
			t.Errorf("capacity-bound without evidence: %s", b.Text())
		}
	}
	for i := 1; i < len(run.Cells); i++ {
		if b := diagnose.Cell(run, &run.Cells[i]); len(b) > 0 {
			t.Errorf("%s: %s", run.Cells[i].Label(), b[0].Text())
		}
	}
	if a := diagnose.Advise(run); slices.ContainsFunc(a, func(a diagnose.Advice) bool { return a.Moves == diagnose.Capacity }) {
		t.Errorf("advice %+v: nothing was shown over capacity", a)
	}
	// The same cell over capacity by the server's refusal is capacity-bound.
	run.Cells[2].Reason = "the server ran out of KV cache during the window: KV cache is full"
	if b := diagnose.Cell(run, &run.Cells[2]); len(b) == 0 || b[0].Kind != diagnose.Capacity {
		t.Errorf("a refusal's Over capacity: %+v, want capacity-bound", b)
	}
	if b := diagnose.Run(run); len(b) == 0 || b[len(b)-1].Kind != diagnose.Capacity || len(b[len(b)-1].Cells) != 2 {
		t.Errorf("bottlenecks %+v, want 512×2 and the 512×4 not run after it capacity-bound", b)
	}
}
