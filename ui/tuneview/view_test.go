package tuneview_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/tuneview"
)

// A sweep document read back from an export shows its verdict and table,
// and Apply hands the winner's flags to the Launch form.
func TestShowImportedSweep(t *testing.T) {
	test.NewTempApp(t)
	const exported = `{"schema":"rigbench.tune/v1","sweep_id":"0123abcd","objective":"total-tok-s@16Kx8",
"base":{"model":"m","flags":["--max-num-seqs","64"]},"mode":"grid","plan":{"contexts":[16384],"concurrency":[8],"prefill_contexts":null,"duration_s":30,"max_output":1024},
"variants":[{"flags":[],"label":"your flags","status":"measured","score":100,"cells":[{"context":16384,"concurrency":8,"status":"Valid","total_tok_s":100}]},
{"flags":["--kv-cache-dtype","fp8"],"label":"--kv-cache-dtype fp8","status":"measured","score":138,"cells":[{"context":16384,"concurrency":8,"status":"Valid","total_tok_s":138}]},
{"flags":["--gpu-memory-utilization","0.3"],"label":"--gpu-memory-utilization 0.3","status":"failed to start","score":null,"error":"No memory left for the KV cache.","cells":[]}],
"best":1,"verdict":"` + "`--kv-cache-dtype fp8`" + `: +38% total tok/s at 16K×8 over your flags."}`
	d, err := tune.ReadDoc(strings.NewReader(exported))
	if err != nil {
		t.Fatal(err)
	}
	var applied []vllm.FlagValue
	v := tuneview.New(tuneview.Backend{OnApply: func(c []vllm.FlagValue) { applied = c }})
	test.NewWindow(v.Content()).Resize(fyne.NewSize(1200, 800))
	v.Show(d)
	if v.Verdict() != "Verdict: --kv-cache-dtype fp8: +38% total tok/s at 16K×8 over your flags." {
		t.Errorf("verdict %q", v.Verdict())
	}
	rows := v.Rows()
	if len(rows) != 4 || rows[2][0] != "2 ★" || rows[2][5] != "138.0" || rows[3][2] != "failed to start" {
		t.Errorf("rows %q", rows)
	}
	if !v.CanApply() {
		t.Fatal("Apply is disabled")
	}
	v.Apply()
	if len(applied) != 1 || applied[0].Name != "--kv-cache-dtype" || applied[0].Value != "fp8" {
		t.Errorf("applied %v", applied)
	}
}

// demoSweep is the app's Sweep on the demo, as the root builds it
// (Services.Sweep with the chosen target filled in).
func demoSweep(in tune.SpecInput) (*tune.Runner, error) {
	in.Target = session.TargetInput{Kind: session.Demo, SimSpeed: "50"}
	return in.Runner(session.Launching{})
}

func TestAddDimensionRefusesBadInput(t *testing.T) {
	test.NewTempApp(t)
	v := tuneview.New(tuneview.Backend{Sweep: demoSweep})
	for _, c := range [][2]string{{"", "1"}, {"--kv-cache-dtype", "int3"}, {"--api-key", "a,b"}, {"--max-num-seqs", ""}} {
		if err := v.AddDimension(c[0], c[1]); err == nil {
			t.Errorf("%q = %q was accepted", c[0], c[1])
		}
	}
	if err := v.AddDimension("--enable-prefix-caching", "on,off"); err != nil {
		t.Fatal(err)
	}
	// The summary counts the variants: the base and both states of the
	// switch.
	if s := v.Summary(); !strings.HasPrefix(s, "3 variants") {
		t.Errorf("summary %q", s)
	}
}

// Issue 24 items 4 and 5: after a sweep the chart sits above the table,
// not over it; each bar's score carries its ±, a tie says so in the chart
// and the table, a cell mostly spent waiting says so beside its score, the
// labels say what differs (none cut alike); the form's defaults are the
// CLI's (auto windows, the objective at the largest cell).
func TestSweepChartShowsUncertaintyAboveTheTable(t *testing.T) {
	test.NewTempApp(t)
	const exported = `{"schema":"rigbench.tune/v1","sweep_id":"6ae7014c","objective":"total-tok-s@16Kx32",
"base":{"model":"m","flags":[]},"mode":"grid","plan":{"contexts":[16384],"concurrency":[32],"prefill_contexts":null,"duration_s":30,"max_output":1024},
"variants":[{"flags":[],"label":"your flags","status":"measured","score":286.9,"score_ci95":3.1,"cells":[{"context":16384,"concurrency":32,"status":"Valid","total_tok_s":286.9}]},
{"flags":["--kv-cache-dtype","fp8","--max-num-seqs","64"],"label":"--kv-cache-dtype fp8 --max-num-seqs 64","status":"measured","score":287.7,"score_ci95":3.0,
 "cells":[{"context":16384,"concurrency":32,"status":"Valid","total_tok_s":287.7,"reason":"TTFT 21 s is 69% of the 30 s window, so this rate is mostly waiting for first tokens"}]},
{"flags":["--kv-cache-dtype","fp8","--max-num-seqs","128"],"label":"--kv-cache-dtype fp8 --max-num-seqs 128","status":"measured","score":287.7,"score_ci95":3.2,"cells":[{"context":16384,"concurrency":32,"status":"Valid","total_tok_s":287.7}]}],
"best":0,"ties":[1,2],"verdict":"Keep your flags."}`
	d, err := tune.ReadDoc(strings.NewReader(exported))
	if err != nil {
		t.Fatal(err)
	}
	v := tuneview.New(tuneview.Backend{Sweep: demoSweep, OnExport: func(*tune.Doc) {}, OnImport: func() {}})
	if s := v.Summary(); strings.Contains(s, "--vary") || !strings.Contains(s, "press Add") {
		t.Errorf("an empty form says %q, want the app's way to add a flag, not the CLI's --vary", s)
	}
	if _, _, w := v.Workload(); w != "auto" {
		t.Errorf("Window defaults to %q, the CLI's default is auto", w)
	}
	if o, _ := v.Objective(); o != "total-tok-s" {
		t.Errorf("Objective defaults to %q, the CLI's default is total-tok-s", o)
	}
	w := test.NewWindow(v.Content())
	w.Resize(fyne.NewSize(1280, 800))
	v.Show(d)
	rows := v.Chart()
	if len(rows) != 4 {
		t.Fatalf("chart rows %q, want a title and 3 bars", rows)
	}
	seen := map[string]bool{}
	for i, r := range rows[1:] {
		label, _, _ := strings.Cut(r, " | ")
		if seen[label] {
			t.Errorf("two bars are labelled %q", label)
		}
		seen[label] = true
		if !strings.Contains(r, " ± ") {
			t.Errorf("bar %d %q has no ±", i, r)
		}
		if i > 0 && !strings.Contains(r, "a tie") {
			t.Errorf("bar %d %q does not read as a tie", i, r)
		}
	}
	if !strings.Contains(rows[2], "mostly waiting") {
		t.Errorf("bar %q does not carry its cell's note", rows[2])
	}
	if score := v.Rows()[2][len(v.Rows()[2])-1]; !strings.Contains(score, "±") || !strings.Contains(score, "a tie") {
		t.Errorf("table score %q, want its ± and the tie", score)
	}
	// Item 13: at 900 px nothing needs sideways scrolling.
	if mw := v.Content().MinSize().Width; mw > 860 {
		t.Errorf("after a sweep the view needs %.0f units, more than a 900 px window holds beside the tab's padding", mw)
	}
	box := v.Results().Objects
	chart, table := box[0], box[1]
	if bottom := chart.Position().Y + chart.Size().Height; bottom > table.Position().Y {
		t.Errorf("the chart ends at %.0f, below the table's top at %.0f: drawn over it", bottom, table.Position().Y)
	}
	if chart.Size().Height < chart.MinSize().Height {
		t.Errorf("the chart has %.0f of the %.0f it needs", chart.Size().Height, chart.MinSize().Height)
	}
}

// Issue 24 item 4: a second flag added grows the form, and the estimate
// under it moves down instead of sitting on the Constraint row.
func TestEstimateStaysBelowTheForm(t *testing.T) {
	test.NewTempApp(t)
	v := tuneview.New(tuneview.Backend{})
	w := test.NewWindow(v.Content())
	w.Resize(fyne.NewSize(1280, 800))
	for _, d := range [][2]string{{"--kv-cache-dtype", "auto,fp8"}, {"--max-num-seqs", "64,128"}} {
		if err := v.AddDimension(d[0], d[1]); err != nil {
			t.Fatal(err)
		}
		objs := v.FormBox().Objects
		form, summary := objs[len(objs)-2], objs[len(objs)-1]
		if bottom := form.Position().Y + form.Size().Height; bottom > summary.Position().Y+1 {
			t.Errorf("after adding %s the form ends at %.0f, below the estimate's top %.0f", d[0], bottom, summary.Position().Y)
		}
	}
}

// Prefill (the Results view's "Tune this") fills the form with the
// advice's sweep: the sweep the form builds varies the advised flag one at
// a time from the run's own flags and checks the advice's prediction.
func TestPrefillKeepsTheAdvice(t *testing.T) {
	test.NewTempApp(t)
	var built []tune.Spec
	v := tuneview.New(tuneview.Backend{Sweep: func(in tune.SpecInput) (*tune.Runner, error) {
		r, err := demoSweep(in)
		if err == nil {
			built = append(built, r.Spec)
		}
		return r, err
	}})
	var base vllm.LaunchConfig
	base.Set("--max-num-seqs", "2")
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 5, MaxOutput: 64}
	d, err := tune.NewDimension("--max-num-seqs", []string{"4"})
	if err != nil {
		t.Fatal(err)
	}
	v.Prefill(tune.Spec{Base: base, Mode: tune.OneAtATime, Plan: plan, Dimensions: []tune.Dimension{d},
		Objective: tune.Objective{Kind: tune.MaxTotalTokS, Context: 0, Concurrency: 4},
		Expect:    []tune.Expectation{{Flag: "--max-num-seqs", Value: "4", Concurrency: 4, Outcome: "runs without queueing"}}})
	if len(built) == 0 {
		t.Fatalf("the form built no sweep; status %q, summary %q", v.Status(), v.Summary())
	}
	if !strings.Contains(v.Status(), "from the run's advice") {
		t.Errorf("status %q does not say the form holds the advice", v.Status())
	}
	s := built[len(built)-1]
	if got, _ := s.Base.Get("--max-num-seqs"); got != "2" || s.Mode != tune.OneAtATime || len(s.Expect) != 1 || len(s.Variants()) != 2 {
		t.Errorf("sweep from the form: base --max-num-seqs %q, mode %s, %d expectations, %d variants", got, s.Mode, len(s.Expect), len(s.Variants()))
	}
}

// Issue 26 item 5: a sweep whose cells have both total and per-request
// tok/s shows its trade-off chart below the bars, with the frontier's
// points in words, and still fits a 900 px window.
func TestSweepShowsTradeOff(t *testing.T) {
	test.NewTempApp(t)
	const exported = `{"schema":"rigbench.tune/v1","sweep_id":"7bf0125d","objective":"total-tok-s@1Kx8",
"base":{"model":"m","flags":[]},"mode":"grid","plan":{"contexts":[1024],"concurrency":[1,8],"prefill_contexts":null,"duration_s":30,"max_output":1024},
"variants":[{"flags":[],"label":"your flags","status":"measured","score":300,"score_ci95":4,"cells":[
 {"context":1024,"concurrency":1,"status":"Valid","total_tok_s":60,"per_request_tok_s":60,"total_tok_s_ci95":1,"per_request_tok_s_ci95":1},
 {"context":1024,"concurrency":8,"status":"Valid","total_tok_s":300,"per_request_tok_s":37.5,"total_tok_s_ci95":4,"per_request_tok_s_ci95":0.5}]},
{"flags":["--max-num-seqs","4"],"label":"--max-num-seqs 4","status":"measured","score":200,"score_ci95":3,"cells":[
 {"context":1024,"concurrency":1,"status":"Valid","total_tok_s":64,"per_request_tok_s":64},
 {"context":1024,"concurrency":8,"status":"Requests queued","total_tok_s":200,"per_request_tok_s":25}]}],
"best":0,"verdict":"Keep your flags."}`
	d, err := tune.ReadDoc(strings.NewReader(exported))
	if err != nil {
		t.Fatal(err)
	}
	v := tuneview.New(tuneview.Backend{OnExport: func(*tune.Doc) {}, OnImport: func() {}})
	w := test.NewWindow(v.Content())
	w.Resize(fyne.NewSize(1280, 800))
	v.Show(d)
	rows := v.Chart()
	if len(rows) != 4 {
		t.Fatalf("chart rows %q, want a title, 2 bars and the trade-off", rows)
	}
	want := "Trade-off across variants | Pareto frontier: 1K×1 (max-num-seqs 4): 64.0 tok/s per request, 64.0 total; " +
		"1K×8 (base: your flags): 37.5 tok/s per request, 300.0 total"
	if rows[3] != want {
		t.Errorf("trade-off row\n%q, want\n%q", rows[3], want)
	}
	if mw := v.Content().MinSize().Width; mw > 860 {
		t.Errorf("with the trade-off chart the view needs %.0f units, more than a 900 px window holds", mw)
	}
}

// Issue 41 minor 16: the Objective field offers its choices (it was free
// text with the names in a placeholder); each choice picked reads as a
// sweep the form accepts on its default workload, and a typed objective
// still counts.
func TestObjectiveOffersItsChoices(t *testing.T) {
	test.NewTempApp(t)
	v := tuneview.New(tuneview.Backend{Sweep: demoSweep})
	if err := v.AddDimension("--enable-prefix-caching", "on,off"); err != nil {
		t.Fatal(err)
	}
	choices := v.ObjectiveChoices()
	if len(choices) < 6 {
		t.Fatalf("the Objective field offers %v", choices)
	}
	for _, c := range choices {
		if !v.PickObjective(c) {
			t.Fatalf("%q could not be picked", c)
		}
		s, err := demoInput(v).Spec()
		if err != nil {
			t.Errorf("objective %q: the form refuses it: %v", c, err)
			continue
		}
		if got, _ := v.Objective(); got != c || !strings.HasPrefix(s.Objective.String(), strings.Split(c, "@")[0]) {
			t.Errorf("picked %q: the field reads %q, the sweep's objective %q", c, got, s.Objective.String())
		}
	}
	if v.PickObjective("fastest") {
		t.Error("a choice that is not offered was picked")
	}
	v.SetObjective("ttft-p90@1Kx8", "")
	if s, err := demoInput(v).Spec(); err != nil || s.Objective.String() != "ttft-p90@1Kx8" {
		t.Errorf("typed objective: %v, %v", s.Objective, err)
	}
}

// demoInput is the form's sweep aimed at the demo (the app sets the
// target from the Launch page).
func demoInput(v *tuneview.View) tune.SpecInput {
	in := v.Input()
	in.Target = session.TargetInput{Kind: session.Demo}
	return in
}
