package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
)

func init() {
	register(&command{
		name:  "quality",
		usage: "quality (--endpoint URL | --demo [-- VLLM FLAGS]) --probe agreement|gsm8k:N|mmlu-pro:N|gpqa-diamond:N [--baseline FILE] [--json FILE] [--dataset FILE] | quality compare BASELINE CANDIDATE",
		summary: "Check that a launch still answers right: token agreement, or GSM8K, MMLU-Pro or GPQA Diamond accuracy with its interval, " +
			"and against a baseline the paired change, its flips and the exact McNemar p; compare pairs two saved results " +
			"(RigBench's, or two of llm-inference-bench's completion-stats reports).",
		run: runQuality,
	})
}

// datasetDir is the folder beside the history where fetched data sets are
// cached (as predict keeps model facts in "models").
func datasetDir(histPath string) string { return filepath.Join(filepath.Dir(histPath), "datasets") }

func runQuality(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "compare" {
		return runQualityCompare(e, args[1:])
	}
	fs := newFlagSet("quality", e)
	endpoint := fs.String("endpoint", "", "URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	apiKey := fs.String("api-key", "", "API key of the server (default $RIGBENCH_API_KEY)")
	model := fs.String("model", "", "model to ask (default: the server's)")
	demo := fs.Bool("demo", false, "ask RigBench's built-in simulated vLLM server, with the vLLM flags after --")
	probeName := fs.String("probe", "agreement", "what to measure: agreement (token agreement with logprobs), or gsm8k:N, mmlu-pro:N or gpqa-diamond:N "+
		"(N items of the data set, evenly spread; without :N all of them)")
	baseline := fs.String("baseline", "", "a result written earlier by --json, in `FILE`: compare with it pair by pair")
	jsonOut := fs.String("json", "", "write the result ("+quality.Kind+") to `FILE`, for a later --baseline")
	dataset := fs.String("dataset", "", "read the probe's data set (or a file in its layout) from `FILE` instead of fetching it")
	maxTokens := fs.Int("max-tokens", 0, fmt.Sprintf("max_tokens of each answer (default %d)", quality.DefaultTaskMaxTokens))
	var hist historyFlags
	hist.register(fs)
	set, vllmArgs, err := parseSet(fs, args)
	if err != nil || set == nil {
		return err
	}
	if count(*endpoint != "", *demo) != 1 {
		return usagef("choose one target: --endpoint URL or --demo")
	}
	if len(vllmArgs) > 0 && !*demo {
		return usagef("unexpected arguments %q (vLLM flags after -- need --demo)", strings.Join(vllmArgs, " "))
	}
	var guard safefile.Guard
	keepHistory(&guard, e, hist.db)
	var base *quality.Result
	if *baseline != "" {
		if base, err = readQuality(*baseline); err != nil {
			return err
		}
		guard.Keep(*baseline, "the baseline (--baseline)")
	}
	if err := guard.Check(*jsonOut); err != nil {
		return usagef("--json: %v", err)
	}
	probe, header, err := qualityProbe(ctx, e, *probeName, *demo, *dataset, hist.db, *maxTokens)
	if err != nil {
		return err
	}
	if base != nil {
		if err := quality.Comparable(base, header); err != nil {
			return fmt.Errorf("%s: %w", *baseline, err) // before asking anything
		}
	}
	key := *apiKey
	if key == "" {
		key = e.getenv("RIGBENCH_API_KEY")
	}
	var stated *sim.Loss
	target := session.QualityTarget{Endpoint: *endpoint, APIKey: key, Model: *model, Demo: *demo, DemoArgs: vllmArgs,
		OnSim: func(s *sim.Server) { l := s.QualityLoss(); stated = &l }}
	res, err := session.Quality(ctx, target, probe)
	if err != nil {
		return err
	}
	if err := printQuality(e.stdout, res, base); err != nil {
		return err
	}
	if stated != nil {
		printStatedLoss(e.stdout, *stated)
	}
	if *jsonOut != "" {
		if err := safefile.Write(*jsonOut, res.Write); err != nil {
			return fmt.Errorf("write %s: %w", *jsonOut, err)
		}
	}
	return nil
}

func readQuality(path string) (*quality.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s (%v): give a file that `rigbench-cli quality --json` or %s wrote", path, err, quality.SeedTool)
	}
	defer f.Close()
	r, err := quality.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// runQualityCompare is `quality compare BASELINE CANDIDATE`: two saved
// results, each RigBench's (rigbench.quality/v1) or llm-inference-bench's
// completion-stats report, paired as a live probe pairs with --baseline.
func runQualityCompare(e *env, args []string) error {
	if len(args) != 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[1], "-") {
		return usagef("quality compare takes two files: BASELINE CANDIDATE")
	}
	base, err := readQuality(args[0])
	if err != nil {
		return err
	}
	cand, err := readQuality(args[1])
	if err != nil {
		return err
	}
	if len(base.Items) == 0 && len(base.Prompts) == 0 {
		return fmt.Errorf("%s holds no answers to compare: give a probe's result", args[0])
	}
	if err := quality.Comparable(base, cand); err != nil {
		return fmt.Errorf("%s and %s: %w", args[0], args[1], err)
	}
	return printQuality(e.stdout, cand, base)
}

// taskProbes are the task probes by the seed tool's profile names, with
// its aliases (llm_decode_bench.py 0.4.29, BUILTIN_TEST_PROFILE_ALIASES):
// the pinned source, and how its file is read.
var taskProbes = map[string]struct {
	src   quality.Source
	parse func(name string, data []byte) (*quality.Dataset, error)
	demo  func() (*quality.Dataset, error)
}{
	"gsm8k": {quality.GSM8K, quality.ParseGSM8K, func() (*quality.Dataset, error) {
		return quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(quality.DemoItems))
	}},
	"mmlu-pro": {quality.MMLUPro, func(n string, d []byte) (*quality.Dataset, error) {
		return quality.ParseChoice(n, quality.LayoutMMLUPro, d)
	}, demoChoice},
	"gpqa-diamond": {quality.GPQADiamond, func(n string, d []byte) (*quality.Dataset, error) {
		return quality.ParseChoice(n, quality.LayoutGPQA, d)
	}, demoChoice},
}

var probeAliases = map[string]string{"gsm-8k": "gsm8k", "mmlupro": "mmlu-pro", "mmlu-pro-1000": "mmlu-pro", "gpqa": "gpqa-diamond", "gpqa_diamond": "gpqa-diamond"}

func demoChoice() (*quality.Dataset, error) {
	return quality.ParseChoice(quality.DemoChoiceName, quality.LayoutMMLUPro, quality.DemoChoice(quality.DemoItems))
}

// qualityProbe reads --probe: "agreement", or a task probe NAME[:N] with
// its data set (the demo's own sets on --demo, the only problems its
// simulator reads; else the pinned file from --dataset or fetched into the
// cache). The probe is named by its canonical name and item count
// ("mmlu-pro:200"), so results pair whatever alias asked for them.
func qualityProbe(ctx context.Context, e *env, name string, demo bool, file, db string, maxTokens int) (session.QualityProbe, *quality.Result, error) {
	if name == "agreement" {
		p := quality.AgreementProbe{}
		return p.Run, p.Header(), nil
	}
	kind, n, hasN := strings.Cut(name, ":")
	if a, ok := probeAliases[kind]; ok {
		kind = a
	}
	tp, known := taskProbes[kind]
	items, err := strconv.Atoi(n)
	if !known || (hasN && (err != nil || items < 1)) {
		return nil, nil, usagef("--probe: %q is not a probe: use agreement, gsm8k:N, mmlu-pro:N or gpqa-diamond:N (N items, e.g. gsm8k:200)", name)
	}
	var ds *quality.Dataset
	switch {
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read the data set %s (%v): check the path", file, err)
		}
		if ds, err = tp.parse(tp.src.Name, data); err != nil {
			return nil, nil, err
		}
	case demo:
		ds, _ = tp.demo()
	default:
		histPath, err := store.ResolvePath(db, e.getenv)
		if err != nil {
			return nil, nil, err
		}
		data, err := quality.Fetch(ctx, nil, tp.src, datasetDir(histPath))
		if err != nil {
			return nil, nil, err
		}
		if ds, err = tp.parse(tp.src.Name, data); err != nil {
			return nil, nil, err
		}
	}
	if !hasN {
		items = len(ds.Items)
	}
	if items > len(ds.Items) {
		return nil, nil, usagef("--probe: %s has %d items, fewer than %d", ds.Name, len(ds.Items), items)
	}
	p := quality.TaskProbe{Name: fmt.Sprintf("%s:%d", kind, items), Dataset: ds, N: items, MaxTokens: maxTokens}
	return p.Run, p.Header(), nil
}

// printStatedLoss says what the simulator's profile makes this launch
// lose, so a demo's measured figures can be read against the truth.
func printStatedLoss(w io.Writer, l sim.Loss) {
	if l == (sim.Loss{}) {
		fmt.Fprintln(w, "the simulator's profile makes this launch lossless")
		return
	}
	fmt.Fprintf(w, "the simulator's profile states this launch's loss: tokens diverge with probability %.3g each, logit noise %.3g nats, "+
		"%.3g%% of right answers turn wrong and %.3g%% of wrong ones right, answers %.3g%% longer\n", l.TokenDivergence, l.LogitNoise, 100*l.Lose, 100*l.Gain, 100*l.LengthInflation)
}

// printQuality prints a result and, with a baseline, the paired comparison.
func printQuality(w io.Writer, r, base *quality.Result) error {
	what := r.Endpoint
	if r.Source != "" {
		what = fmt.Sprintf("%s (%s report of %s)", r.Endpoint, r.Source, r.Model)
	}
	if r.Simulated {
		what = "the simulator"
		if len(r.Flags) > 0 {
			what += " (" + strings.Join(r.Flags, " ") + ")"
		}
	}
	if r.Dataset != nil {
		fmt.Fprintf(w, "%s on %s (sha256 %.12s…), %d items, asked of %s\n", r.Probe, r.Dataset.Name, r.Dataset.SHA256, len(r.Items), what)
		fmt.Fprintln(w, r.Text())
		if base == nil {
			return nil
		}
		c, err := quality.Compare(base, r)
		if err != nil {
			return err
		}
		if c.BaselineOnly+c.CandidateOnly > 0 {
			fmt.Fprintf(w, "paired on the %d items both scored (%d only in the baseline, %d only here, left out, as %s pairs them)\n",
				c.N, c.BaselineOnly, c.CandidateOnly, quality.SeedTool)
		}
		fmt.Fprintf(w, "against the baseline (%.1f%%): %+.1f points, 95%% CI %+.1f to %+.1f; %d right only in the baseline, %d only in this run; exact McNemar %s\n",
			100*c.Baseline.Share, c.DeltaPoints, c.DeltaCI95.Lo, c.DeltaCI95.Hi, c.RightOnlyBaseline, c.RightOnlyCandidate, quality.PText(c.McNemarP))
		fmt.Fprintf(w, "verdict: %s\n", c.Verdict())
		for _, k := range c.Categories {
			fmt.Fprintf(w, "  %-10s %3d items  %+5.1f points  (%d lost, %d gained, %s)\n", k.Name, k.N, k.DeltaPoints, k.Lost, k.Gained, quality.PText(k.McNemarP))
		}
		fmt.Fprintln(w, "completion tokens: "+c.TokensText())
		return nil
	}
	tokens := 0
	for _, p := range r.Prompts {
		tokens = max(tokens, len(p.Tokens))
	}
	fmt.Fprintf(w, "agreement: %d prompts × %d greedy tokens with top-k logprobs, asked of %s\n", len(r.Prompts), tokens, what)
	if base == nil {
		fmt.Fprintln(w, "save it with --json FILE and compare a later launch with --baseline FILE")
		return nil
	}
	ag, err := quality.CompareAgreement(base, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "against the baseline: %.1f%% ± %.1f%% of tokens identical before the first divergence (%d of %d prompts diverged; %.0f%% identical after it)\n",
		100*ag.PrefixShare, 100*ag.PrefixShareCI95, ag.Diverged, ag.Prompts, 100*ag.AfterShare)
	fmt.Fprintf(w, "approximate KL divergence over the top-k: %.4f ± %.4f nats per token at shared-prefix positions\n", ag.KL, ag.KLCI95)
	return nil
}

// registerQuality declares --quality and --quality-dataset, the flags of
// run and tune that ask a quality probe of each launch after its matrix.
func (f *runFlags) registerQuality(fs *flag.FlagSet) {
	fs.StringVar(&f.quality, "quality", "", "after the matrix, ask the same server a quality `PROBE`: agreement (token agreement with logprobs), or gsm8k:N, mmlu-pro:N or gpqa-diamond:N (the first N items of the data set); "+
		"the run keeps its result (rigbench-cli quality describes the probes)")
	fs.StringVar(&f.qualityData, "quality-dataset", "", "with a task probe in --quality, read its data set (or a file in its layout) from `FILE` instead of fetching it")
}

// runQuality is --quality as the session asks it (nil when not given),
// with its header: what a baseline must match, known before anything is
// asked.
func (f *runFlags) runQuality(ctx context.Context, e *env) (*session.RunQuality, *quality.Result, error) {
	if f.quality == "" {
		if f.qualityData != "" {
			return nil, nil, usagef("--quality-dataset needs a task probe in --quality (gsm8k:N, mmlu-pro:N, gpqa-diamond:N)")
		}
		return nil, nil, nil
	}
	probe, header, err := qualityProbe(ctx, e, f.quality, f.demo, f.qualityData, f.db, 0)
	if u := (usageError{}); errors.As(err, &u) {
		return nil, nil, usagef("--quality%s", strings.TrimPrefix(u.msg, "--probe"))
	}
	if err != nil {
		return nil, nil, err
	}
	name := f.quality
	return &session.RunQuality{Name: name, Probe: probe,
		Started: func() { fmt.Fprintf(e.stderr, "quality probe %s: asking the same server\n", name) }}, header, nil
}
