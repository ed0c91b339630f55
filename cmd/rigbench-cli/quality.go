package main

import (
	"context"
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
		usage: "quality (--endpoint URL | --demo [-- VLLM FLAGS]) --probe agreement|gsm8k:N [--baseline FILE] [--json FILE] [--dataset FILE]",
		summary: "Check that a launch still answers right: token agreement or GSM8K accuracy with its interval, " +
			"and against a baseline the paired change, its flips and the exact McNemar p.",
		run: runQuality,
	})
}

// datasetDir is the folder beside the history where fetched data sets are
// cached (as predict keeps model facts in "models").
func datasetDir(histPath string) string { return filepath.Join(filepath.Dir(histPath), "datasets") }

func runQuality(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("quality", e)
	endpoint := fs.String("endpoint", "", "URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	apiKey := fs.String("api-key", "", "API key of the server (default $RIGBENCH_API_KEY)")
	model := fs.String("model", "", "model to ask (default: the server's)")
	demo := fs.Bool("demo", false, "ask RigBench's built-in simulated vLLM server, with the vLLM flags after --")
	probeName := fs.String("probe", "agreement", "what to measure: agreement (token agreement with logprobs) or gsm8k:N (the first N GSM8K test problems)")
	baseline := fs.String("baseline", "", "a result written earlier by --json, in `FILE`: compare with it pair by pair")
	jsonOut := fs.String("json", "", "write the result ("+quality.Kind+") to `FILE`, for a later --baseline")
	dataset := fs.String("dataset", "", "read GSM8K's test set (or a file in its layout) from `FILE` instead of fetching it")
	maxTokens := fs.Int("max-tokens", 0, fmt.Sprintf("max_tokens of each GSM8K answer (default %d)", quality.DefaultTaskMaxTokens))
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
		return nil, fmt.Errorf("cannot read the baseline %s (%v): give a file that `rigbench-cli quality --json` wrote", path, err)
	}
	defer f.Close()
	r, err := quality.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// qualityProbe reads --probe: "agreement", or "gsm8k:N" with its data set
// (the demo's own arithmetic set on --demo, whose simulator reads only
// that; else GSM8K from --dataset or fetched into the cache).
func qualityProbe(ctx context.Context, e *env, name string, demo bool, file, db string, maxTokens int) (session.QualityProbe, *quality.Result, error) {
	if name == "agreement" {
		p := quality.AgreementProbe{}
		return p.Run, p.Header(), nil
	}
	n, ok := strings.CutPrefix(name, "gsm8k:")
	items, err := strconv.Atoi(n)
	if !ok || err != nil || items < 1 {
		return nil, nil, usagef("--probe: %q is not a probe: use agreement or gsm8k:N (N items, e.g. gsm8k:200)", name)
	}
	var ds *quality.Dataset
	switch {
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read the data set %s (%v): check the path", file, err)
		}
		if ds, err = quality.ParseGSM8K(quality.GSM8K.Name, data); err != nil {
			return nil, nil, err
		}
	case demo:
		ds, _ = quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(quality.DemoItems))
	default:
		histPath, err := store.ResolvePath(db, e.getenv)
		if err != nil {
			return nil, nil, err
		}
		data, err := quality.Fetch(ctx, nil, quality.GSM8K, datasetDir(histPath))
		if err != nil {
			return nil, nil, err
		}
		if ds, err = quality.ParseGSM8K(quality.GSM8K.Name, data); err != nil {
			return nil, nil, err
		}
	}
	if items > len(ds.Items) {
		return nil, nil, usagef("--probe: %s has %d items, fewer than %d", ds.Name, len(ds.Items), items)
	}
	p := quality.TaskProbe{Name: name, Dataset: ds, N: items, MaxTokens: maxTokens}
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
	fs.StringVar(&f.quality, "quality", "", "after the matrix, ask the same server a quality `PROBE`: agreement (token agreement with logprobs) or gsm8k:N (the first N GSM8K test problems); "+
		"the run keeps its result (rigbench-cli quality describes the probes)")
	fs.StringVar(&f.qualityData, "quality-dataset", "", "with --quality gsm8k:N, read GSM8K's test set (or a file in its layout) from `FILE` instead of fetching it")
}

// runQuality is --quality as the session asks it (nil when not given),
// with its header: what a baseline must match, known before anything is
// asked.
func (f *runFlags) runQuality(ctx context.Context, e *env) (*session.RunQuality, *quality.Result, error) {
	if f.quality == "" {
		if f.qualityData != "" {
			return nil, nil, usagef("--quality-dataset needs --quality gsm8k:N")
		}
		return nil, nil, nil
	}
	probe, header, err := qualityProbe(ctx, e, f.quality, f.demo, f.qualityData, f.db, 0)
	if err != nil {
		return nil, nil, err
	}
	name := f.quality
	return &session.RunQuality{Name: name, Probe: probe,
		Started: func() { fmt.Fprintf(e.stderr, "quality probe %s: asking the same server\n", name) }}, header, nil
}
