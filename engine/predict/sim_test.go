//go:build !race

package predict_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
)

// profileCase is a simulator profile with the launch flags it is served
// with: the two-card profiles spread the model over both cards.
type profileCase struct {
	name string
	args []string
}

var profileCases = []profileCase{
	{"rtx3060-12gb", nil},
	{"h100-80gb", nil},
	{"rtx3060-12gb-x2", []string{"--tensor-parallel-size", "2"}},
	{"h100-80gb-x2", []string{"--tensor-parallel-size", "2"}},
}

// input is the prediction of a profile's launch as the demo's user gets
// it: the simulated card (its memory and bandwidth, as its stand-in
// nvidia-smi reports them), the profile's model and the launch's flags.
func input(t *testing.T, name string, args []string, plan rundoc.Plan) predict.Input {
	t.Helper()
	p, err := sim.ProfileByName(name)
	if err != nil {
		t.Fatal(err)
	}
	card, cards := predict.ProfileCard(p)
	return predict.Input{Card: card, Cards: cards, NVLink: p.Link == sim.LinkNVLink, Model: predict.ProfileModel(p), Args: args, Plan: plan}
}

// measure runs plan on the demo of profile name with args, at speed.
func measure(t *testing.T, name string, args []string, plan rundoc.Plan, speed float64) *rundoc.Run {
	t.Helper()
	cfg, err := sim.ParseArgs(append([]string{"--profile", name}, args...))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speed = speed
	o := session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{}},
		SimLaunch: &rundoc.Launch{Model: cfg.Profile.Model, Args: append([]string{"--profile", name}, args...)}}
	run, err := session.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// smallPlan is a matrix that has every kind of cell on every profile
// (Valid, over capacity on the one-card ones) and runs in seconds at 20×.
var smallPlan = rundoc.Plan{Contexts: []int{0, 16384, 32768}, Concurrency: []int{1, 4, 16}, PrefillContexts: []int{16384},
	DurationS: 10, MaxOutput: rundoc.DefaultMaxOutput, Window: rundoc.WindowFixed}

// worst compares a prediction with a measured run: every predicted status
// must be the measured one, and it returns the largest relative error of
// decode total tok/s over the Valid cells and how many there were. A cell
// the run found Unreliable (its client fell behind the simulator on a
// loaded machine, which the cell says) is no evidence either way: it is
// counted in unreliable, for agree to measure again slower.
func worst(t *testing.T, pr *predict.Prediction, run *rundoc.Run) (w float64, n, unreliable int) {
	t.Helper()
	for _, c := range pr.Cells {
		m := run.Find(c.Phase, c.Context, c.Concurrency)
		if m == nil {
			t.Errorf("%s %d×%d predicted %s, not in the measured run", c.Phase, c.Context, c.Concurrency, c.Status)
			continue
		}
		if m.Status == rundoc.StatusUnreliable {
			unreliable++
			continue
		}
		if m.Status != measuredAs(c.Status) {
			t.Errorf("%s %d×%d predicted %s, measured %s (%s)", c.Phase, c.Context, c.Concurrency, c.Status, m.Status, m.Reason)
		}
		if c.Phase == rundoc.PhaseDecode && m.Status == rundoc.StatusValid {
			w = math.Max(w, math.Abs(c.TotalTokS/m.TotalTokS-1))
			n++
		}
	}
	return w, n, unreliable
}

// measuredAs is the status a measurement gives a cell predicted st:
// Valid for one predicted to run.
func measuredAs(st rundoc.Status) rundoc.Status {
	if st == predict.StatusRuns {
		return rundoc.StatusValid
	}
	return st
}

// speeds are the demo speeds a measured check tries, fastest first: a
// loaded machine can starve the client at 20×, which then reads rates
// low or finds cells Unreliable, so a miss is measured again at 5×.
var speeds = []float64{20, 5}

// agree measures the plan and checks the prediction's decode against it
// within bound (see speeds).
func agree(t *testing.T, pc profileCase, pr *predict.Prediction, plan rundoc.Plan, bound float64) *rundoc.Run {
	t.Helper()
	var run *rundoc.Run
	for _, speed := range speeds {
		run = measure(t, pc.name, pc.args, plan, speed)
		w, n, unreliable := worst(t, pr, run)
		if n == 0 {
			t.Fatalf("%s: no Valid decode cell measured", pc.name)
		}
		if w <= bound && unreliable == 0 {
			t.Logf("%s at %g×: decode within %.1f%% in %d Valid cells", pc.name, speed, 100*w, n)
			return run
		}
		t.Logf("%s at %g×: decode off by %.1f%%, %d cells Unreliable", pc.name, speed, 100*w, unreliable)
	}
	t.Errorf("%s: predicted decode more than %.0f%% from the measured run, or cells Unreliable at every speed", pc.name, 100*bound)
	return run
}

// learnFrom learns prior from a run of the plan on the profile: a run the
// time model fits badly (twice its RMS residual over 5%: a client starved
// at 20× reads rates unevenly) is measured again slower (see speeds).
func learnFrom(t *testing.T, pc profileCase, prior predict.Efficiency, card predict.Card, plan rundoc.Plan) (predict.Efficiency, *rundoc.Run) {
	t.Helper()
	var e predict.Efficiency
	var run *rundoc.Run
	for _, speed := range speeds {
		run = measure(t, pc.name, pc.args, plan, speed)
		e = predict.Learn(prior, card, []*rundoc.Run{run}, nil)
		if e.Uncertainty <= 0.05 {
			return e, run
		}
		t.Logf("%s at %g×: the run fits the time model within ±%.0f%% only; measuring again slower", pc.name, speed, 100*e.Uncertainty)
	}
	return e, run
}

// Issue 38's first "Done when": for every profile with its flags the KV
// pool is within 3% of the simulator's, every status of the default
// matrix is the plan check's, and every status and decode figure of a
// measured run agrees (decode within 15% before learning, and within 5%
// on a second launch with other flags after learning from the first).
func TestPredictsEverySimulatorProfile(t *testing.T) {
	for _, pc := range profileCases {
		t.Run(pc.name, func(t *testing.T) {
			cfg, err := sim.ParseArgs(append([]string{"--profile", pc.name}, pc.args...))
			if err != nil {
				t.Fatal(err)
			}
			maxLen, kv, err := sim.Facts(cfg)
			if err != nil {
				t.Fatal(err)
			}
			def := rundoc.DefaultPlan()
			pr, err := predict.Predict(input(t, pc.name, pc.args, def))
			if err != nil {
				t.Fatal(err)
			}
			if !pr.Fits || math.Abs(float64(pr.Memory.KVTokens)/float64(kv)-1) > 0.03 {
				t.Errorf("predicted KV %d tokens (fits %v: %s), the simulator sizes %d", pr.Memory.KVTokens, pr.Fits, pr.Problem, kv)
			}
			// The default matrix's statuses before anything runs are the
			// runner's plan check on the server's facts.
			preview := session.Predict(def, session.Facts{MaxModelLen: maxLen, KVCapacity: kv, Slots: cfg.Profile.DefaultMaxNumSeqs})
			for _, c := range pr.Cells {
				if c.Phase != rundoc.PhaseDecode {
					continue
				}
				want := predict.StatusRuns
				if f := preview.Find(c.Phase, c.Context, c.Concurrency); f != nil {
					want = f.Status
				}
				if c.Status != want {
					t.Errorf("default matrix %d×%d: predicted %s, the plan check says %s", c.Context, c.Concurrency, c.Status, want)
				}
			}
			pr, err = predict.Predict(input(t, pc.name, pc.args, smallPlan))
			if err != nil {
				t.Fatal(err)
			}
			first := agree(t, pc, pr, smallPlan, 0.15)

			// What the CLI prints after the run: the prediction ForRun
			// rebuilds from the run alone agrees as well.
			fr, err := predict.ForRun(first)
			if err != nil {
				t.Fatal(err)
			}
			if v := fr.Compare(first); v.N == 0 || v.Worst > 0.15 || !strings.Contains(v.Text(fr.Basis()), "Predicted before the run") {
				t.Errorf("ForRun: %+v", v)
			}

			// Learning keeps a prior that is already right right: learned
			// from that run, it predicts a second launch with other flags
			// within 5%.
			in := input(t, pc.name, pc.args, smallPlan)
			prior := predict.Prior(in.Card, in.Model.ID)
			learned := predict.Learn(prior, in.Card, []*rundoc.Run{first}, nil)
			if learned.Uncertainty > 0.05 {
				learned, _ = learnFrom(t, pc, prior, in.Card, smallPlan)
			}
			if learned.Runs != 1 {
				t.Fatalf("learned from %d runs", learned.Runs)
			}
			other := append([]string{"--max-num-seqs", "8"}, pc.args...)
			in.Args, in.Efficiency = other, learned
			pr, err = predict.Predict(in)
			if err != nil {
				t.Fatal(err)
			}
			agree(t, profileCase{pc.name, other}, pr, smallPlan, 0.05)
		})
	}
}

// Learning, tested where it has something to learn: the 3060 profile's
// launch predicted from the generic efficiencies (as for a card no
// profile knows) is far off; after one measured run it predicts a second
// launch with other flags and another plan within 5%, and says it learned
// from one run.
func TestLearnsFromOneRun(t *testing.T) {
	pc := profileCases[0]
	in := input(t, pc.name, nil, smallPlan)
	generic := predict.Prior(predict.Card{Name: "a card no profile has"}, "")
	if generic.Source != predict.SourceGeneric {
		t.Fatalf("prior of an unknown card: %s", generic.Source)
	}
	second := rundoc.Plan{Contexts: []int{0, 8192, 24576}, Concurrency: []int{2, 8}, PrefillContexts: []int{8192},
		DurationS: 10, MaxOutput: rundoc.DefaultMaxOutput, Window: rundoc.WindowFixed}
	otherFlags := []string{"--kv-cache-dtype", "fp8", "--max-model-len", "65536"}
	in.Args, in.Plan, in.Efficiency = otherFlags, second, generic
	before, err := predict.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	learned, _ := learnFrom(t, pc, generic, in.Card, smallPlan)
	if learned.Runs != 1 || learned.Source == generic.Source {
		t.Fatalf("learned from %d runs (%s), want 1", learned.Runs, learned.Source)
	}
	in.Efficiency = learned
	after, err := predict.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	run := agree(t, profileCase{pc.name, otherFlags}, after, second, 0.05)
	wBefore, _, _ := worst(t, before, run)
	wAfter, _, _ := worst(t, after, run)
	t.Logf("generic efficiencies off by %.1f%%, learned %.1f%% (uncertainty ±%.0f%%)", 100*wBefore, 100*wAfter, 100*learned.Uncertainty)
	if wBefore <= 0.05 {
		t.Errorf("the generic prediction was already within 5%% (%.1f%%): the test shows no learning", 100*wBefore)
	}
	// The learned efficiencies carry to another model on the card.
	if learned.Weights <= 0 || learned.KV <= 0 || learned.Seq <= 0 {
		t.Errorf("learned efficiencies %+v", learned)
	}
}

// oddOnesOut are the page's cells whose status no server behaviour
// explains, the simulator's calibration found (docs/simulator.md, "Where
// the reference is the odd one out"): 128K × 1 and × 2 Requests queued
// with one and two streams, and 248K × 1 Over capacity though its one
// request fits the cache. A prediction can no more give them than the
// simulator can; the test names them instead of skipping the page.
var oddOnesOut = map[string]bool{"131072×1": true, "131072×2": true, "253952×1": true}

// Issue 38's second "Done when": the published RTX 3060 page predicted
// from the card's data sheet and the model facts the default profile
// documents gives every status of the page, and decode within 20% at
// context 0 and 16K.
func TestPredictsThePublishedRTX3060Page(t *testing.T) {
	f, err := os.Open("testdata/rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page, err := report.ReadReferenceCSVNamed(f, "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err != nil {
		t.Fatal(err)
	}
	card, err := predict.FindCard("RTX 3060")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := predict.Predict(predict.Input{Card: card, Model: predict.ProfileModel(sim.DefaultProfile()), Plan: page.Plan})
	if err != nil {
		t.Fatal(err)
	}
	checked, worst := 0, 0.0
	for _, m := range page.Cells {
		var c *predict.Cell
		for i := range pr.Cells {
			if p := &pr.Cells[i]; p.Phase == m.Phase && p.Context == m.Context && p.Concurrency == m.Concurrency {
				c = p
			}
		}
		if c == nil {
			t.Errorf("the page's %s %d×%d has no predicted cell", m.Phase, m.Context, m.Concurrency)
			continue
		}
		if measuredAs(c.Status) != m.Status && !oddOnesOut[fmt.Sprintf("%d×%d", m.Context, m.Concurrency)] {
			t.Errorf("%s %d×%d: predicted %s, the page %s", m.Phase, m.Context, m.Concurrency, c.Status, m.Status)
		}
		if m.Phase == rundoc.PhaseDecode && m.Status == rundoc.StatusValid && (m.Context == 0 || m.Context == 16384) {
			checked++
			worst = math.Max(worst, math.Abs(c.TotalTokS/m.TotalTokS-1))
			if e := c.TotalTokS/m.TotalTokS - 1; math.Abs(e) > 0.20 {
				t.Errorf("decode %d×%d: predicted %.1f tok/s, the page %.1f (%+.0f%%)", m.Context, m.Concurrency, c.TotalTokS, m.TotalTokS, 100*e)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d decode cells at 0 and 16K compared", checked)
	}
	t.Logf("decode at 0 and 16K within %.1f%% of the page in %d cells", 100*worst, checked)
}

// A launch that does not fit says by how much and the smallest change
// that fits, one case per kind; each fix, applied, fits.
func TestDoesNotFitSaysHowToFit(t *testing.T) {
	card, err := predict.FindCard("RTX 3060")
	if err != nil {
		t.Fatal(err)
	}
	llama := predict.ModelFromConfig("meta-llama/Llama-3.1-8B-Instruct", predict.Config{
		Layers: 32, Heads: 32, KVHeads: 8, Hidden: 4096, HeadDim: 128, Vocab: 128256, MaxLen: 131072,
		Intermediate: 14336, TorchDtype: "bfloat16"}, int64(16.06e9))
	ref := predict.ProfileModel(sim.DefaultProfile())
	cases := []struct {
		name     string
		model    predict.Model
		args     []string
		wantFlag string
		short    bool
	}{
		{"weights too big", llama, nil, "--quantization", true},
		{"KV too small for max-model-len", ref, []string{"--gpu-memory-utilization", "0.65"}, "--max-model-len", true},
		{"max-num-seqs above the batch budget", ref, []string{"--max-num-seqs", "4096"}, "--max-num-batched-tokens", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := predict.Input{Card: card, Model: tc.model, Args: tc.args}
			pr, err := predict.Predict(in)
			if err != nil {
				t.Fatal(err)
			}
			if pr.Fits || pr.Problem == "" {
				t.Fatalf("fits %v (%s)", pr.Fits, pr.Problem)
			}
			if tc.short != (pr.ShortGiB > 0) {
				t.Errorf("short by %.2f GiB", pr.ShortGiB)
			}
			if len(pr.Fixes) == 0 || len(pr.Fixes[0].Flags) == 0 || pr.Fixes[0].Flags[0].Name != tc.wantFlag {
				t.Fatalf("fixes %+v, want %s first", pr.Fixes, tc.wantFlag)
			}
			for _, f := range pr.Fixes {
				if len(f.Flags) == 0 {
					continue // another card
				}
				in2 := in
				in2.Args = append([]string(nil), in.Args...)
				for _, fl := range f.Flags {
					if fl.Name == "--quantization" {
						in2.Model.WeightsGiB /= 2 // what 8-bit weights take
						continue
					}
					in2.Args = append(in2.Args, fl.Name, fl.Value)
				}
				p2, err := predict.Predict(in2)
				if err != nil || !p2.Fits {
					t.Errorf("fix %v does not fit: %v", f.Args(), err)
				}
			}
			if tc.wantFlag == "--quantization" {
				if last := pr.Fixes[len(pr.Fixes)-1]; !strings.Contains(last.Says, "fits on the") {
					t.Errorf("no larger card suggested: %+v", pr.Fixes)
				}
			}
		})
	}
}
