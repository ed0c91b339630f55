package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
	def := rundoc.DefaultPlan().Input()
	register(&command{
		name: "run",
		usage: "run (--endpoint URL | --demo | --launch --model ID) [--api-key K] [--model NAME] " +
			fmt.Sprintf("[--contexts %s] [--concurrency %s] [--prefill %s|none] ", def.Contexts, def.Concurrency, def.Prefill) +
			fmt.Sprintf("[--duration %s|30s] [--precision %s] [--max-duration %s] [--prompts %s|%s] [--max-output %s] ",
				def.Window, def.Precision, def.MaxDuration, rundoc.PromptsShared, rundoc.PromptsUnique, def.MaxOutput) +
			"[--burst] [--request-count K] [--burst-limit 30m] [--quick] [--kv-capacity TOKENS] [--weights-gib GIB] [--json FILE] [--name NAME] " +
			"[--quality PROBE] [--no-save] [--db FILE] [--resume ID] [-- vLLM flags…]",
		summary: "Run the prefill and sustained-decode matrix against a server and print the results.",
		run:     runRun,
		cleanup: "saving the cells measured so far and stopping a launched server",
	})
}

// runFlags are the flags of `run`.
type runFlags struct {
	endpoint, apiKey, model string
	// flags is the parsed flag set, kept by registerWindow (which every
	// command with a plan calls): planInput reads each plan flag given
	// from it as the text typed, whatever Go type declared it.
	flags *flag.FlagSet
	// contexts and concurrency are where tune.go declares its workload
	// flags; run declares its plan flags as text (registerPlan) and never
	// reads these.
	contexts, concurrency       string
	weightsGiB                  string
	jsonPath, name, tags, notes string
	demo                        bool
	// quick starts the plan from rundoc.QuickPlan, the app's first plan,
	// instead of the full matrix; plan flags given still win.
	quick       bool
	simProfile  string
	simSpeed    string
	noTelemetry bool
	resume      string
	// quality is --quality, the probe asked of the server after the
	// matrix, and qualityData its --quality-dataset.
	quality, qualityData string
	launch               launchFlags
	saveFlags
}

// options is the session the flags ask for: the target (read by
// session.TargetInput, with the CLI's launching), the plan and the labels
// of the run.
func (f *runFlags) options(e *env, plan rundoc.Plan, target session.TargetInput) (session.Options, error) {
	opts, err := target.Options(f.launch.options(f.model, f.saveFlags.db).launching(e))
	if err != nil {
		return opts, usagef("%v", flagError(err))
	}
	opts.Plan, opts.Name, opts.Notes, opts.NoTelemetry, opts.Tags = plan, f.name, f.notes, f.noTelemetry, splitList(f.tags)
	if target.Kind == session.Endpoint {
		opts.Model = f.model // a launch or the demo serves its own
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
	registerPlan(fs, map[rundoc.Field]string{
		rundoc.FieldContexts: "decode contexts in tokens, e.g. 0,16K,max, or none for prefill only; left out or empty, " +
			"the default less any context the server cannot hold, which the run names",
		rundoc.FieldConcurrency: fmt.Sprintf("concurrency levels: whole numbers from 1 to %d", rundoc.MaxConcurrency),
		rundoc.FieldPrefill:     "prefill contexts in tokens, or none",
		rundoc.FieldMaxOutput:   "max_tokens of every decode request, in `TOKENS` (8192 or 8K)",
		rundoc.FieldKVCapacity: "KV cache capacity in `TOKENS` (36864 or 36K) to plan with, for a server that reports none; " +
			"it replaces a reported one (the run records the source as user); left out or empty: the server's",
	})
	f.registerWindow(fs)
	registerBurst(fs)
	fs.BoolVar(&f.quick, "quick", false, "start from the quick plan, the app's first one (decode at "+
		quickText(rundoc.FieldContexts)+" × "+quickText(rundoc.FieldConcurrency)+", prefill "+quickText(rundoc.FieldPrefill)+
		"): a first look in minutes on a card, seconds on --demo --sim-speed 10, instead of the full matrix; plan flags given still win")
	fs.StringVar(&f.weightsGiB, "weights-gib", "", "with --endpoint, the model's size in `GiB` on the card (vLLM logs it as \"Model loading took X GiB\"), so decode cells get their % of the bandwidth roofline")
	fs.StringVar(&f.jsonPath, "json", "", "write the run document (rigbench.run/v1) to this file")
	fs.StringVar(&f.name, "name", "", "name of the run in the history (default: the model, up to three flags that differ from vLLM's defaults and the start time, as the app names runs)")
	fs.StringVar(&f.tags, "tags", "", "comma-separated tags")
	fs.StringVar(&f.notes, "notes", "", "free-text notes")
	fs.BoolVar(&f.demo, "demo", false, "benchmark RigBench's built-in simulated vLLM server (no GPU needed)")
	fs.StringVar(&f.simProfile, "sim-profile", "", "simulator profile with --demo: "+strings.Join(sim.ProfileNames(), ", ")+
		", or a card RigBench knows (\"RTX 4090\"; predict --list-cards), which the demo imitates serving the model as predicted")
	fs.StringVar(&f.simSpeed, "sim-speed", "1", "with --demo, run the simulator `FACTOR` times faster than the card it imitates, 1 or more (windows shorten; figures stay in the card's time)")
	fs.BoolVar(&f.noTelemetry, "no-telemetry", false, "do not sample GPU power and clocks")
	f.registerQuality(fs)
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
	keyFromEnv := false
	if f.apiKey == "" {
		f.apiKey = e.getenv("RIGBENCH_API_KEY")
		keyFromEnv = f.apiKey != ""
	}
	// The demo takes the same vLLM flags as a launch (session.DemoConfig):
	// the simulator runs them, and the run records them.
	target, err := f.readTarget(e, set, vllmArgs, false)
	if err != nil {
		return err
	}
	f.saveFlags.keep(e)
	if f.jsonPath != "" {
		if err := checkWritable(f.jsonPath, &f.kept); err != nil {
			return usagef("%v", err)
		}
	}
	var resume *rundoc.Run
	if f.resume != "" {
		if resume, err = f.loadResume(ctx, e); err != nil {
			return err
		}
		plan = resume.Plan
	}
	opts, err := f.options(e, plan, target)
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
	if opts.Quality, _, err = f.runQuality(ctx, e); err != nil {
		return err
	}

	saver, closeDB, err := f.saveFlags.recorder(ctx, e)
	if err != nil {
		return err
	}
	if resume != nil && saver != nil {
		// Two resumes of one run at once would both measure its missing
		// cells, and one's figures would be lost.
		release, err := saver.Claim(ctx, resume.UUID)
		if err != nil {
			closeDB(nil)
			return err
		}
		closeHistory := closeDB
		closeDB = func(run *rundoc.Run) error { release(); return closeHistory(run) }
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

// planInput is the plan flags given, as typed, for rundoc.PlanInput to
// read: each plan flag is named as its rundoc.Field, and the CLI parses
// none of them itself, so --max-output 8K reads as the app's Max output
// 8K does. A flag left out, or given empty, is the default, as an empty
// field of the app's form is. (The error is always nil; tune.go calls it
// so.)
func (f *runFlags) planInput(set map[string]bool) (rundoc.PlanInput, error) {
	var in rundoc.PlanInput
	for _, field := range rundoc.PlanFields {
		if fl := f.flags.Lookup(string(field)); fl != nil && set[fl.Name] {
			in.Set(field, fl.Value.String())
		} else if f.quick {
			// The quick plan's own text where it differs from the
			// default; elsewhere an empty field, the default, as in the
			// app's form.
			in.Set(field, quickText(field))
		}
	}
	return in, nil
}

// quickText is rundoc.QuickPlan's text for field, "" where it is the
// default plan's.
func quickText(field rundoc.Field) string {
	q, def := rundoc.QuickPlan().Input(), rundoc.DefaultPlan().Input()
	if t := q.Text(field); t != def.Text(field) {
		return t
	}
	return ""
}

// registerPlan declares plan flags as text, each named as its
// rundoc.Field, with its help (usage) and the default rendered from
// rundoc.DefaultPlan, so help and defaults are never a copy of the
// engine's. Their values are only ever read by planInput.
func registerPlan(fs *flag.FlagSet, usage map[rundoc.Field]string) {
	def := rundoc.DefaultPlan().Input()
	for _, field := range rundoc.PlanFields {
		if u, ok := usage[field]; ok {
			fs.String(string(field), def.Text(field), u)
		}
	}
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
		return errors.New(fe.In(flagName(fe.Field)))
	}
	return err
}

// registerWindow adds --duration, --precision, --max-duration and
// --prompts (run and tune), and keeps fs for planInput.
func (f *runFlags) registerWindow(fs *flag.FlagSet) {
	f.flags = fs
	registerPlan(fs, map[rundoc.Field]string{
		rundoc.FieldWindow: "length of each decode window: auto (each window stops once total tok/s is known within --precision) " +
			"or a fixed length such as 30s (or 30, in seconds), the seed tool's method",
		rundoc.FieldPrecision:   "with --duration auto, the 95% uncertainty of total tok/s at which a window stops",
		rundoc.FieldMaxDuration: "with --duration auto, the longest a decode window lasts",
		rundoc.FieldPrompts: "prompt policy: shared (one document per context for every stream and cell, the seed tool's, " +
			"so figures compare with published runs) or unique (one per stream)",
	})
	registerPlan(fs, map[rundoc.Field]string{
		rundoc.FieldAcceptLenRef: "for a speculative launch, the acceptance length `L` (tokens per step, such as 3) at which every decode cell " +
			"also reports projected tok/s = steps/s × L, so runs whose prompts draft differently compare on one footing",
	})
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
func whereTheRunIs(run *rundoc.Run, jsonPath string, jsonErr error, dir, dbArg string) string {
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
	return fmt.Sprintf("the whole run was written to %s instead%s: 'rigbench-cli import %s%s' adds it to the history later", fallback, also, vllm.Quote(fallback), dbArg)
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
		saveErr = fmt.Errorf("%w; %s", saveErr, whereTheRunIs(run, f.jsonPath, jsonErr, os.TempDir(), f.saveFlags.dbArg()))
		jsonErr = nil // said in saveErr
		runErr = errors.Join(runErr, saveErr)
	} else if saver != nil && run != nil && saver.Saved() {
		fmt.Fprintf(e.stderr, "saved as run %s in the history (rigbench-cli show %s%s)\n", rundoc.ShortID(run.UUID), rundoc.ShortID(run.UUID), f.saveFlags.dbArg())
		if line := unreliableAdvice(run, f.resumeTarget(), f.saveFlags.dbArg()); line != "" {
			fmt.Fprintln(e.stderr, termtext.Safe(line))
		}
		if jsonErr != nil {
			jsonErr = fmt.Errorf("%v; the run is in the history, so 'rigbench-cli export %s%s -o FILE' writes it later", jsonErr, rundoc.ShortID(run.UUID), f.saveFlags.dbArg())
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
