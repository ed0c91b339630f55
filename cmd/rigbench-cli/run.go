package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/internal/termtext"
	"github.com/rigbench/rigbench/store"
)

func init() {
	register(&command{
		name: "run",
		usage: "run (--endpoint URL | --demo | --launch --model ID) [--api-key K] [--model NAME] " +
			"[--contexts 0,16K,32K,64K,128K,max] [--concurrency 1,2,4,…,128] [--prefill 8K,…,128K|none] " +
			"[--duration auto|30s] [--precision 1%] [--max-duration 30s] [--prompts shared|unique] [--max-output 8192] [--kv-capacity TOKENS] [--weights-gib GIB] [--json FILE] [--name NAME] " +
			"[--no-save] [--db FILE] [--resume ID] [-- vLLM flags…]",
		summary: "Run the prefill and sustained-decode matrix against a server and print the results.",
		run:     runRun,
		cleanup: "saving the cells measured so far and stopping a launched server",
	})
}

// runFlags are the flags of `run`.
type runFlags struct {
	endpoint, apiKey, model        string
	contexts, concurrency, prefill string
	duration, precision            string
	prompts                        string
	maxDuration                    time.Duration
	maxOutput, kvCapacity          int
	weightsGiB                     float64
	jsonPath, name, tags, notes    string
	demo                           bool
	simProfile                     string
	simSpeed                       float64
	noTelemetry                    bool
	resume                         string
	launch                         launchFlags
	saveFlags
}

// options is the session the flags ask for: the target, the plan and the
// labels of the run.
func (f *runFlags) options(e *env, plan rundoc.Plan, simCfg sim.Config, demoLaunch *rundoc.Launch, vllmArgs []string) (session.Options, error) {
	opts := session.Options{Model: f.model, Plan: plan, Name: f.name, Notes: f.notes, NoTelemetry: f.noTelemetry,
		Tags: splitList(f.tags)}
	switch {
	case f.endpoint != "":
		opts.Kind, opts.Endpoint, opts.APIKey, opts.WeightsGiB = session.Endpoint, f.endpoint, f.apiKey, f.weightsGiB
	case f.demo:
		opts.Kind, opts.Sim, opts.SimLaunch = session.Demo, simCfg, demoLaunch
		opts.Model = ""
	case f.launch.enabled:
		l, err := f.launch.launcher(e, f.model, vllmArgs)
		if err != nil {
			return session.Options{}, err
		}
		opts.Kind, opts.Launcher, opts.Model = session.Launch, l, ""
	}
	opts.Log = logPrinter(e.stderr)
	// A plan the server cannot run stops at its first event and reaches
	// neither the progress lines nor the history.
	opts.StopWhenNothingRuns = true
	return opts, nil
}

// parse reads the flags of `run` into f and returns which were set and the
// words after them (vLLM flags); set is nil after --help.
func (f *runFlags) parse(e *env, args []string) (set map[string]bool, rest []string, err error) {
	fs := newFlagSet("run", e)
	f.register(fs)
	return parseSet(fs, args)
}

// parseSet parses args with fs and returns the names of the flags given and
// the words after them; set is nil after --help, and a bad flag is exit 2
// (the flag package has printed why).
func parseSet(fs *flag.FlagSet, args []string) (set map[string]bool, rest []string, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, nil
		}
		return nil, nil, exitError{code: 2}
	}
	set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set, fs.Args(), nil
}

// register declares the flags of `run`.
func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.endpoint, "endpoint", "", "URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&f.apiKey, "api-key", "", "API key of the server (default $RIGBENCH_API_KEY)")
	fs.StringVar(&f.model, "model", "", "model to benchmark (default: the server's first; with --launch: the Hugging Face id to serve)")
	fs.StringVar(&f.contexts, "contexts", "", "decode contexts in tokens, e.g. 0,16K,32K,max (default 0,16K,32K,64K,128K,max)")
	fs.StringVar(&f.concurrency, "concurrency", "1,2,4,8,16,32,64,128", fmt.Sprintf("concurrency levels: whole numbers from 1 to %d", rundoc.MaxConcurrency))
	fs.StringVar(&f.prefill, "prefill", "", "prefill contexts, or none (default 8K,16K,32K,64K,128K)")
	f.registerWindow(fs)
	fs.IntVar(&f.maxOutput, "max-output", rundoc.DefaultMaxOutput, "max_tokens of every decode request")
	fs.IntVar(&f.kvCapacity, "kv-capacity", 0, "KV cache capacity in tokens to plan with, for a server that reports none; it replaces a reported one (the run records the source as user)")
	fs.Float64Var(&f.weightsGiB, "weights-gib", 0, "with --endpoint, the model's size in GiB on the card (vLLM logs it as \"Model loading took X GiB\"), so decode cells get their % of the bandwidth roofline")
	fs.StringVar(&f.jsonPath, "json", "", "write the run document (rigbench.run/v1) to this file")
	fs.StringVar(&f.name, "name", "", "name of the run in the history (default: the model, up to three flags that differ from vLLM's defaults and the start time, as the app names runs)")
	fs.StringVar(&f.tags, "tags", "", "comma-separated tags")
	fs.StringVar(&f.notes, "notes", "", "free-text notes")
	fs.BoolVar(&f.demo, "demo", false, "benchmark RigBench's built-in simulated vLLM server (no GPU needed)")
	fs.StringVar(&f.simProfile, "sim-profile", "", "simulator profile with --demo: "+strings.Join(sim.ProfileNames(), ", "))
	fs.Float64Var(&f.simSpeed, "sim-speed", 1, "with --demo, run the simulator this many times faster than the card it imitates, 1 or more (windows shorten; figures stay in the card's time)")
	fs.BoolVar(&f.noTelemetry, "no-telemetry", false, "do not sample GPU power and clocks")
	fs.StringVar(&f.resume, "resume", "", "continue run ID of the history (one that stopped, say because its server died): measure only its Failed, Cancelled and missing cells, into the same run, against the server --endpoint, --demo or --launch gives; its other cells stay as they were")
	f.launch.register(fs)
	f.saveFlags.register(fs)
}

func runRun(ctx context.Context, e *env, args []string) error {
	var f runFlags
	set, vllmArgs, err := f.parse(e, args)
	if err != nil || set == nil {
		return err // nil after --help
	}
	if len(vllmArgs) > 0 && !f.launch.enabled && !f.demo {
		return usagef("unexpected arguments %q (vLLM flags after -- need --launch or --demo)", strings.Join(vllmArgs, " "))
	}
	// Everything the flags alone can tell is checked here, before the
	// simulator, a container or the history is touched: a typo must not
	// cost a model load, and must exit 2 like any other usage error.
	if err := f.checkResume(set); err != nil {
		return usagef("%v", err)
	}
	plan, err := f.plan(set)
	if err != nil && f.resume == "" {
		return usagef("%v", err)
	}
	simCfg, err := f.checkTarget(set)
	if err != nil {
		return usagef("%v", err)
	}
	// The demo takes the same vLLM flags as a launch (session.DemoConfig):
	// the simulator runs them, and the run records them.
	var demoLaunch *rundoc.Launch
	if f.demo && len(vllmArgs) > 0 {
		if simCfg, demoLaunch, err = demoFlags(simCfg, vllmArgs, f.simProfile != ""); err != nil {
			return usagef("%v", err)
		}
	}
	f.saveFlags.keep(e)
	if f.jsonPath != "" {
		if err := checkWritable(f.jsonPath, &f.kept); err != nil {
			return usagef("%v", err)
		}
	}
	keyFromEnv := false
	if f.apiKey == "" {
		f.apiKey = e.getenv("RIGBENCH_API_KEY")
		keyFromEnv = f.apiKey != ""
	}

	var resume *rundoc.Run
	if f.resume != "" {
		if resume, err = f.loadResume(ctx, e); err != nil {
			return err
		}
		plan = resume.Plan
	}
	opts, err := f.options(e, plan, simCfg, demoLaunch, vllmArgs)
	if err != nil {
		return err
	}
	if l, ok := opts.Launcher.(*session.DockerLauncher); ok {
		closeRig, err := withRig(ctx, e, f.launch.rig, l)
		if err != nil {
			return err
		}
		defer closeRig()
	}
	opts.Resume = resume

	saver, closeDB, err := f.saveFlags.recorder(ctx, e)
	if err != nil {
		return err
	}
	prog := newProgress(e.stderr)
	// The history sees each event before the progress line does: a cell
	// the user reads as finished is already saved, so a kill -9 right
	// after the line cannot lose it.
	if saver != nil {
		opts.Observers = append(opts.Observers, saver)
	}
	opts.Observers = append(opts.Observers, prog, &droppedNote{asked: plan, note: e.stderr})

	run, runErr := session.Run(ctx, opts)
	prog.finish()
	var nothing *session.NothingRunsError
	if errors.As(runErr, &nothing) {
		closeDB(nil) // nothing was recorded
		return planError(nothing)
	}
	if f.endpoint != "" && errors.Is(runErr, client.ErrUnauthorized) {
		runErr = apiKeyError(f.apiKey, keyFromEnv)
	}
	if run != nil && len(run.Cells) > 0 {
		printResults(e.stdout, run)
		printDiagnosis(e.stdout, run)
	}
	runErr = f.goneAdvice(runErr, run, saver != nil && saver.Saved())
	return f.finish(e, run, runErr, saver, closeDB)
}

// checkTarget checks that exactly one target is chosen and that the
// simulator flags come only with it, and returns the simulator's
// configuration for --demo.
func (f *runFlags) checkTarget(set map[string]bool) (sim.Config, error) {
	modes := 0
	for _, on := range []bool{f.endpoint != "", f.demo, f.launch.enabled} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return sim.Config{}, errors.New("choose one target: --endpoint URL, --demo or --launch")
	}
	if set["weights-gib"] {
		if f.endpoint == "" {
			return sim.Config{}, errors.New("--weights-gib applies only to --endpoint: RigBench reads the size from the start-up log of a server it starts")
		}
		if !(f.weightsGiB > 0 && f.weightsGiB < 1e6) {
			return sim.Config{}, fmt.Errorf("--weights-gib %g: give the model's size on the card in GiB, more than 0", f.weightsGiB)
		}
	}
	if f.launch.rig != "" {
		if !f.launch.enabled {
			return sim.Config{}, usagef("--rig needs --launch: the run starts its server on that rig")
		}
		if _, err := rigSpec(f.launch.rig); err != nil {
			return sim.Config{}, err
		}
	}
	if !f.demo {
		for _, name := range []string{"sim-profile", "sim-speed"} {
			if set[name] {
				return sim.Config{}, fmt.Errorf("--%s applies only to --demo (the simulator); drop it or use --demo", name)
			}
		}
		return sim.Config{}, nil
	}
	cfg := sim.DefaultConfig()
	if f.simProfile != "" {
		p, err := sim.ProfileByName(f.simProfile)
		if err != nil {
			return cfg, err
		}
		cfg.Profile = p
	}
	// The simulator can only run as fast as the card or faster (a slower
	// one would stretch each window past --duration), and an infinite speed
	// leaves no time to measure.
	if f.simSpeed < 1 || f.simSpeed > rundoc.MaxSimSpeed || math.IsNaN(f.simSpeed) {
		return cfg, fmt.Errorf("--sim-speed must be a number from 1 (the card's own pace) to %d, not %g", rundoc.MaxSimSpeed, f.simSpeed)
	}
	cfg.Speed = f.simSpeed
	return cfg, nil
}

// apiKeyError explains a server that refused the run's API key, naming
// where the key came from, or that none was given.
func apiKeyError(key string, fromEnv bool) error {
	switch {
	case key == "":
		return errors.New("the server needs an API key: pass --api-key or set RIGBENCH_API_KEY")
	case fromEnv:
		return errors.New("the server rejected the API key in RIGBENCH_API_KEY: set the right one there or pass --api-key")
	}
	return errors.New("the server rejected the API key: pass the right one with --api-key")
}

// planInput is the flags as rundoc.PlanInput reads them: a flag left out
// is empty (its default), one given empty is refused here.
func (f *runFlags) planInput(set map[string]bool) (rundoc.PlanInput, error) {
	// An empty field means "the default" to PlanInput; a flag given empty
	// is more likely a shell variable that was not set, so it is refused.
	for _, e := range []struct{ name, value, hint string }{
		{"contexts", f.contexts, "give decode contexts such as 0,16K,max, or leave the flag out for the defaults"},
		{"concurrency", f.concurrency, "give levels such as 1,2,4,8, or leave the flag out for the defaults"},
		{"prefill", f.prefill, "give prefill contexts such as 8K,16K, or none to skip prefill"},
	} {
		if set[e.name] && strings.TrimSpace(e.value) == "" {
			return rundoc.PlanInput{}, fmt.Errorf("--%s is empty: %s", e.name, e.hint)
		}
	}
	in := rundoc.PlanInput{Contexts: f.contexts, Concurrency: f.concurrency, Prefill: f.prefill,
		Window: f.duration, Prompts: f.prompts, MaxOutput: strconv.Itoa(f.maxOutput)}
	if set["precision"] {
		in.Precision = f.precision
	}
	if set["max-duration"] {
		in.MaxDuration = f.maxDuration.String()
	}
	if f.kvCapacity != 0 {
		in.KVCapacity = strconv.Itoa(f.kvCapacity)
	}
	return in, nil
}

// plan builds the plan from the flags (set names the flags given) through
// rundoc.PlanInput, the app's reader too. Without --contexts, the defaults
// that the server cannot hold are dropped at run time (Plan.Resolve keeps
// them; session trims). Each error is one sentence naming the flag.
func (f *runFlags) plan(set map[string]bool) (rundoc.Plan, error) {
	in, err := f.planInput(set)
	if err != nil {
		return rundoc.Plan{}, err
	}
	p, err := in.Plan()
	if err != nil {
		return p, flagError(err)
	}
	// The run's words are checked by the rule an import applies, so the
	// saved run always imports again.
	for _, l := range []struct {
		flag string
		err  error
	}{
		{"--name", rundoc.CheckLabels(f.name, nil, "")},
		{"--tags", rundoc.CheckLabels("", splitList(f.tags), "")},
		{"--notes", rundoc.CheckLabels("", nil, f.notes)},
	} {
		if l.err != nil {
			return p, fmt.Errorf("%s: %v", l.flag, l.err)
		}
	}
	return p, nil
}

// flagError words a plan input's error with its flag ("--concurrency …").
func flagError(err error) error {
	var fe *rundoc.FieldError
	if errors.As(err, &fe) {
		return errors.New(fe.In("--" + string(fe.Field)))
	}
	return err
}

// registerWindow adds --duration, --precision and --max-duration (run and
// tune).
func (f *runFlags) registerWindow(fs *flag.FlagSet) {
	fs.StringVar(&f.duration, "duration", rundoc.WindowAuto, "length of each decode window: auto (each window stops once total tok/s is known within --precision) or a fixed length such as 30s, the seed tool's method")
	fs.StringVar(&f.precision, "precision", "1%", "with --duration auto, the 95% uncertainty of total tok/s at which a window stops")
	fs.DurationVar(&f.maxDuration, "max-duration", rundoc.DefaultDuration, "with --duration auto, the longest a decode window lasts")
	fs.StringVar(&f.prompts, "prompts", rundoc.PromptsShared, "prompt policy: shared (one document per context for every stream and cell, the seed tool's, so figures compare with published runs) or unique (one per stream)")
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

// whereTheRunIs says, once the history could not keep all of a run, where
// the whole run is: the --json file when it was written, else a copy
// written to dir (the temp folder) for a later import, else the table
// printed above, which shows every cell.
func whereTheRunIs(run *rundoc.Run, jsonPath string, jsonErr error, dir string) string {
	if run == nil || len(run.Cells) == 0 {
		return "no cell had finished, so no measurement was lost"
	}
	if jsonPath != "" && jsonErr == nil {
		return "the whole run is in " + jsonPath
	}
	also := ""
	if jsonErr != nil {
		also = fmt.Sprintf(" (%s could not be written: %v)", jsonPath, jsonErr)
	}
	fallback := filepath.Join(dir, "rigbench-run-"+rundoc.ShortID(run.UUID)+".json")
	if err := writeRunFile(nil, fallback, run); err != nil {
		return fmt.Sprintf("every cell is in the table above%s, and a copy could not be written to %s either (%v)", also, fallback, err)
	}
	return fmt.Sprintf("the whole run was written to %s instead%s: 'rigbench-cli import %s' adds it to the history later", fallback, also, fallback)
}

// writeRunFile writes the run document by the safe-file rules (a full disk
// or a crash never leaves a truncated file in place of a good one, a link or
// a device stays what it is). Errors name path, never a temporary file.
func writeRunFile(kept *safefile.Guard, path string, run *rundoc.Run) error {
	return kept.Write(path, func(w io.Writer) error { return rundoc.WriteRun(w, run) })
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

// demoFlags applies vLLM flags to the demo's simulator: base holds the
// speed and, when keepProfile, the --sim-profile choice.
func demoFlags(base sim.Config, vllmArgs []string, keepProfile bool) (sim.Config, *rundoc.Launch, error) {
	c, err := vllm.ParseArgs(vllmArgs)
	if err != nil {
		return base, nil, fmt.Errorf("the vLLM flags after -- are not valid: %w", err)
	}
	s, err := session.DemoConfig(c, base.Speed)
	if err != nil {
		return base, nil, fmt.Errorf("the simulator refuses the vLLM flags after --: %w", err)
	}
	if keepProfile {
		s.Profile = base.Profile
	}
	return s, session.DemoLaunch(c, s), nil
}

// finish writes --json, closes the history and says what was kept: a run
// document that cannot be written must not cost the history, so its error
// is reported after the history is closed and its save confirmed, and the
// run stays there to export.
func (f *runFlags) finish(e *env, run *rundoc.Run, runErr error, saver *store.Recorder, closeDB func(*rundoc.Run) error) error {
	var jsonErr error
	if f.jsonPath != "" && run != nil && run.Plan.MaxOutput > 0 {
		if jsonErr = writeRunFile(&f.kept, f.jsonPath, run); jsonErr == nil {
			fmt.Fprintf(e.stderr, "wrote %s\n", f.jsonPath)
		}
	}
	saveErr := closeDB(run)
	if saveErr != nil {
		// Say exactly what the history kept (store.SaveError) and where
		// the rest is, never that nothing was lost (issue 12).
		saveErr = fmt.Errorf("%w; %s", saveErr, whereTheRunIs(run, f.jsonPath, jsonErr, os.TempDir()))
		jsonErr = nil // said in saveErr
		runErr = errors.Join(runErr, saveErr)
	} else if saver != nil && run != nil && saver.Saved() {
		fmt.Fprintf(e.stderr, "saved as run %s in the history (rigbench-cli show %s)\n", rundoc.ShortID(run.UUID), rundoc.ShortID(run.UUID))
		if jsonErr != nil {
			jsonErr = fmt.Errorf("%v; the run is in the history, so 'rigbench-cli export %s -o FILE' writes it later", jsonErr, rundoc.ShortID(run.UUID))
		}
	}
	if errors.Is(runErr, context.Canceled) {
		for _, err := range []error{jsonErr, saveErr} {
			if err != nil {
				fmt.Fprintf(e.stderr, "rigbench-cli run: %s\n", termtext.SafeLines(err.Error()))
			}
		}
		if saveErr == nil {
			fmt.Fprintln(e.stderr, "cancelled: kept the cells measured so far")
		} else {
			fmt.Fprintln(e.stderr, "cancelled")
		}
		return exitError{code: 130}
	}
	return errors.Join(runErr, jsonErr)
}
