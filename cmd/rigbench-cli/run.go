package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
)

func init() {
	register(&command{
		name: "run",
		usage: "run (--endpoint URL | --demo | --launch --model ID) [--api-key K] [--model NAME] " +
			"[--contexts 0,16K,32K,64K,128K,max] [--concurrency 1,2,4,…,128] [--prefill 8K,…,128K|none] " +
			"[--duration 30s] [--max-output 8192] [--kv-capacity TOKENS] [--json FILE] [--name NAME] " +
			"[--no-save] [--db FILE] [-- vLLM flags…]",
		summary: "Run the prefill and sustained-decode matrix against a server and print the results.",
		run:     runRun,
	})
}

// runFlags are the flags of `run`.
type runFlags struct {
	endpoint, apiKey, model        string
	contexts, concurrency, prefill string
	duration                       time.Duration
	maxOutput, kvCapacity          int
	jsonPath, name, tags, notes    string
	demo                           bool
	simProfile                     string
	simSpeed                       float64
	noTelemetry                    bool
	launch                         launchFlags
	saveFlags
}

func runRun(ctx context.Context, e *env, args []string) error {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&f.endpoint, "endpoint", "", "URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&f.apiKey, "api-key", "", "API key of the server (default $RIGBENCH_API_KEY)")
	fs.StringVar(&f.model, "model", "", "model to benchmark (default: the server's first; with --launch: the Hugging Face id to serve)")
	fs.StringVar(&f.contexts, "contexts", "", "decode contexts in tokens, e.g. 0,16K,32K,max (default 0,16K,32K,64K,128K,max)")
	fs.StringVar(&f.concurrency, "concurrency", "1,2,4,8,16,32,64,128", "concurrency levels")
	fs.StringVar(&f.prefill, "prefill", "", "prefill contexts, or none (default 8K,16K,32K,64K,128K)")
	fs.DurationVar(&f.duration, "duration", bench.DefaultDuration, "length of each decode window")
	fs.IntVar(&f.maxOutput, "max-output", bench.DefaultMaxOutput, "max_tokens of every decode request")
	fs.IntVar(&f.kvCapacity, "kv-capacity", 0, "KV cache capacity in tokens, when the server does not report it")
	fs.StringVar(&f.jsonPath, "json", "", "write the run document (rigbench.run/v1) to this file")
	fs.StringVar(&f.name, "name", "", "name of the run in the history")
	fs.StringVar(&f.tags, "tags", "", "comma-separated tags")
	fs.StringVar(&f.notes, "notes", "", "free-text notes")
	fs.BoolVar(&f.demo, "demo", false, "benchmark RigBench's built-in simulated vLLM server (no GPU needed)")
	fs.StringVar(&f.simProfile, "sim-profile", "", "simulator profile with --demo: "+strings.Join(sim.ProfileNames(), ", "))
	fs.Float64Var(&f.simSpeed, "sim-speed", 1, "with --demo, run the simulator this many times faster than the card it imitates (windows shorten; figures stay in the card's time)")
	fs.BoolVar(&f.noTelemetry, "no-telemetry", false, "do not sample GPU power and clocks")
	f.launch.register(fs)
	f.saveFlags.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return exitError{code: 2}
	}
	vllmArgs := fs.Args()
	if len(vllmArgs) > 0 && !f.launch.enabled {
		return fmt.Errorf("unexpected arguments %q (vLLM flags after -- need --launch): %w", strings.Join(vllmArgs, " "), errUsage)
	}
	plan, err := f.plan()
	if err != nil {
		return fmt.Errorf("%v: %w", err, errUsage)
	}
	if f.apiKey == "" {
		f.apiKey = e.getenv("RIGBENCH_API_KEY")
	}

	opts := session.Options{Model: f.model, Plan: plan, Name: f.name, Notes: f.notes, NoTelemetry: f.noTelemetry,
		Tags: splitList(f.tags)}
	modes := 0
	for _, on := range []bool{f.endpoint != "", f.demo, f.launch.enabled} {
		if on {
			modes++
		}
	}
	switch {
	case modes != 1:
		return fmt.Errorf("choose one target: --endpoint URL, --demo or --launch: %w", errUsage)
	case f.endpoint != "":
		opts.Kind, opts.Endpoint, opts.APIKey = session.Endpoint, f.endpoint, f.apiKey
	case f.demo:
		cfg := sim.DefaultConfig()
		if f.simProfile != "" {
			p, err := sim.ProfileByName(f.simProfile)
			if err != nil {
				return err
			}
			cfg.Profile = p
		}
		cfg.Speed = f.simSpeed
		opts.Kind, opts.Sim = session.Demo, cfg
		opts.Model = ""
	case f.launch.enabled:
		l, err := f.launch.launcher(e, f.model, vllmArgs)
		if err != nil {
			return err
		}
		opts.Kind, opts.Launcher, opts.Model = session.Launch, l, ""
	}
	opts.Log = func(line string) { fmt.Fprintln(e.stderr, line) }

	prog := newProgress(e.stderr)
	opts.Observers = append(opts.Observers, prog)
	saver, closeDB, err := f.saveFlags.recorder(ctx, e)
	if err != nil {
		return err
	}
	if saver != nil {
		opts.Observers = append(opts.Observers, saver)
	}

	run, runErr := session.Run(ctx, opts)
	prog.finish()
	if run != nil && len(run.Cells) > 0 {
		printResults(e.stdout, run)
	}
	if f.jsonPath != "" && run != nil && run.Plan.MaxOutput > 0 {
		if err := writeRunFile(f.jsonPath, run); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", f.jsonPath)
	}
	if err := closeDB(); err != nil {
		runErr = errors.Join(runErr, err)
	} else if saver != nil && run != nil && run.Plan.MaxOutput > 0 {
		fmt.Fprintf(e.stderr, "saved as run %s in the history (rigbench-cli show %s)\n", shortID(run.UUID), shortID(run.UUID))
	}
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintln(e.stderr, "cancelled: kept the cells measured so far")
		return exitError{code: 130}
	}
	return runErr
}

// plan builds the plan from the flags. Without --contexts, the defaults
// that the server cannot hold are dropped at run time (Plan.Resolve keeps
// them; session trims) — explicit contexts above max_model_len are an error.
func (f *runFlags) plan() (bench.Plan, error) {
	p := bench.DefaultPlan()
	var err error
	if f.contexts != "" {
		if p.Contexts, err = bench.ParseTokenList(f.contexts); err != nil {
			return p, fmt.Errorf("--contexts: %w", err)
		}
	} else {
		p.TrimContexts = true
	}
	if p.Concurrency, err = parseIntList(f.concurrency); err != nil {
		return p, fmt.Errorf("--concurrency: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(f.prefill)) {
	case "":
	case "none", "0", "-":
		p.PrefillContexts = nil
	default:
		if p.PrefillContexts, err = bench.ParseTokenList(f.prefill); err != nil {
			return p, fmt.Errorf("--prefill: %w", err)
		}
	}
	p.DurationS = f.duration.Seconds()
	p.MaxOutput = f.maxOutput
	p.KVCapacityOverride = f.kvCapacity
	if f.kvCapacity < 0 {
		return p, errors.New("--kv-capacity must be a positive number of tokens")
	}
	return p, nil
}

func parseIntList(s string) ([]int, error) {
	l, err := bench.ParseTokenList(s)
	if err != nil {
		return nil, err
	}
	for _, n := range l {
		if n < 1 {
			return nil, fmt.Errorf("%q: each value must be a whole number of at least 1", s)
		}
	}
	return l, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// writeRunFile writes the run document atomically: a full disk or a crash
// never leaves a truncated file in place of a good one.
func writeRunFile(path string, run *bench.Run) error {
	tmp, err := os.CreateTemp(dirOf(path), ".rigbench-*.json")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := bench.WriteRun(tmp, run); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return path[:i]
	}
	return "."
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
