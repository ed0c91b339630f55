package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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

// readQuality reads a saved result (quality.ReadFile).
func readQuality(path string) (*quality.Result, error) { return quality.ReadFile(path) }

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

// qualityProbe reads --probe, --dataset and --max-tokens by
// session.NewQualityProbe's rule, the app's too; a name that is no probe
// is a usage error of --probe. The history's path is resolved only when a
// data set is fetched into the folder beside it.
func qualityProbe(ctx context.Context, e *env, name string, demo bool, file, db string, maxTokens int) (session.QualityProbe, *quality.Result, error) {
	probe, header, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: name, Demo: demo, Dataset: file, MaxTokens: maxTokens,
		DatasetDir: func() (string, error) {
			histPath, err := store.ResolvePath(db, e.getenv)
			if err != nil {
				return "", err
			}
			return session.QualityDatasetDir(histPath), nil
		}})
	var pe *session.ProbeNameError
	if errors.As(err, &pe) {
		return nil, nil, usagef("--probe: %s", pe.Msg)
	}
	return probe, header, err
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

// printQuality prints a result and, with a baseline, the paired
// comparison (quality.Report, the app's wording too).
func printQuality(w io.Writer, r, base *quality.Result) error {
	rep, err := quality.NewReport(r, base)
	if err != nil {
		return err
	}
	for _, l := range rep.Lines() {
		fmt.Fprintln(w, l)
	}
	if r.Dataset == nil && base == nil {
		fmt.Fprintln(w, "save it with --json FILE and compare a later launch with --baseline FILE")
	}
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
