package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/store"
)

func init() {
	register(&command{
		name: "tune",
		usage: "tune (--demo [--sim-speed S] | --launch --model ID [--image …] [--gpus …] [--rig NAME|ssh://user@host|--rigs head=ssh://a,ssh://b [--interface IF]]) --vary FLAG=V1,V2 [--vary …] " +
			"[--grid|--one-at-a-time] --contexts 16K,64K --concurrency 1,8 --objective NAME[@CTXxN] [--constraint ttft_p90<=2s] " +
			"[--duration auto|30s] [--precision 1%] [--max-duration 30s] [--quality PROBE] [--json FILE] [--no-save] [--resume ID] [-- base vLLM flags…] " +
			"| tune --from-advice RUN [--quality PROBE] [--json FILE]",
		summary: "Sweep vLLM launch flags, measure each variant, and say which flags make the card fastest (with --quality, the fastest that keeps quality).",
		run:     runTune,
		cleanup: "keeping the finished variants and stopping a launched server",
	})
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// tuneFlags are the flags of `tune`.
type tuneFlags struct {
	runFlags
	vary, constraints listFlag
	grid, oneAtATime  bool
	objective, resume string
	fromAdvice        string
	// maxOutput is tune's --max-output, as typed: a sweep's default is
	// tune.DefaultMaxOutput, not a run's.
	maxOutput string
	// texts are the flags given, as typed (the window flags are run's).
	texts map[string]string
}

func runTune(ctx context.Context, e *env, args []string) error {
	var f tuneFlags
	set, vllmArgs, err := f.parse(e, args)
	if err != nil || set == nil {
		return err // nil after --help
	}
	var r *tune.Runner
	fromFile := false
	if f.fromAdvice != "" {
		r, err = f.adviceRunner(ctx, e, set, vllmArgs)
	} else {
		r, fromFile, err = f.prepare(e, set, vllmArgs)
	}
	if err != nil {
		return err
	}
	if err := f.attachQuality(ctx, e, r); err != nil {
		return err
	}
	var db *store.DB
	var recs *[]*store.Recorder
	if !f.noSave {
		if db, err = f.saveFlags.open(ctx, e); err != nil {
			return err
		}
		defer db.Close()
		if r, recs, err = f.withHistory(e, db, r, fromFile); err != nil {
			return err
		}
		if err := f.attachQuality(ctx, e, r); err != nil {
			return err
		}
	}
	if r.Spec.OneRig() {
		// One connection carries every variant's Docker API and traffic.
		conn, err := connectRig(ctx, e, r.Spec.Rig)
		if err != nil {
			return err
		}
		defer conn.Close()
		r.UseRig(conn)
	}
	r.Log = func(line string) { fmt.Fprintln(e.stderr, "  "+line) }
	if r.Spec.Target == tune.TargetDemo {
		r.Log = func(string) {} // the simulator's one start-up line per variant says nothing new
	}
	r.Progress = progressPrinter(e.stderr)
	n := len(r.Spec.Variants())
	fmt.Fprintf(e.stderr, "sweep %s: %d variants, about %s (resume with --resume %s)\n", r.Spec.ID, n, rundoc.ShortDuration(r.EstimateSweep()), r.Spec.ID)

	res, runErr := r.Run(ctx)
	if res == nil {
		return runErr
	}
	return f.finish(e, r, res, runErr, db, recs)
}

// parse reads the flags of `tune`; set is nil after --help.
func (f *tuneFlags) parse(e *env, args []string) (set map[string]bool, rest []string, err error) {
	fs := newFlagSet("tune", e)
	fs.StringVar(&f.endpoint, "endpoint", "", "(not available: Tune relaunches the server, which it cannot do for an endpoint it did not start)")
	fs.StringVar(&f.model, "model", "", "with --launch: the Hugging Face id to serve")
	fs.StringVar(&f.contexts, "contexts", "", "decode contexts of the workload, e.g. 0,16K")
	fs.StringVar(&f.concurrency, "concurrency", "", "concurrency levels of the workload, e.g. 1,8")
	f.registerWindow(fs)
	fs.StringVar(&f.maxOutput, "max-output", strconv.Itoa(tune.DefaultMaxOutput), "max_tokens of every decode request, in `TOKENS` (8K is 8192)")
	fs.StringVar(&f.jsonPath, "json", "", "write the sweep document (rigbench.tune/v1, docs/tune.md) to this file")
	fs.BoolVar(&f.demo, "demo", false, "sweep RigBench's simulated vLLM server (no GPU needed); it takes the same vLLM flags")
	fs.StringVar(&f.simProfile, "sim-profile", "", "simulator profile with --demo: "+strings.Join(sim.ProfileNames(), ", ")+
		", or a card RigBench knows (\"RTX 4090\"; predict --list-cards), which the demo imitates serving the model as predicted")
	fs.StringVar(&f.simSpeed, "sim-speed", "1", "with --demo, run the simulator `FACTOR` times faster than the card it imitates")
	fs.BoolVar(&f.noTelemetry, "no-telemetry", false, "do not sample GPU power and clocks")
	fs.Var(&f.vary, "vary", "a flag and the values to try, FLAG=V1,V2 (repeatable; dashes optional: kv-cache-dtype=auto,fp8); split=1x2,2x2 varies tensor × pipeline parallel sizes together; interface=IF1,IF2 (with --rigs) tries each network interface for the link between the rigs")
	fs.BoolVar(&f.grid, "grid", false, "run every combination of the values (the default)")
	fs.BoolVar(&f.oneAtATime, "one-at-a-time", false, "change one flag at a time from the base flags")
	fs.StringVar(&f.objective, "objective", string(tune.DefaultObjective), "what fastest means: "+strings.Join(tune.ObjectiveNames, ", "))
	fs.Var(&f.constraints, "constraint", "a limit every scored cell must meet, e.g. ttft_p90<=2s (repeatable)")
	fs.StringVar(&f.fromAdvice, "from-advice", "", "sweep the flags `rigbench-cli advise RUN` advises, one at a time from that run's flags and on the cells it predicts, and check each prediction")
	fs.StringVar(&f.resume, "resume", "", "continue sweep ID (alone, or with the sweep's flags repeated): variants already in the history are not measured again")
	f.registerQuality(fs)
	f.launch.register(fs)
	f.saveFlags.register(fs)
	set, rest, err = parseSet(fs, args)
	f.texts = map[string]string{}
	fs.Visit(func(fl *flag.Flag) { f.texts[fl.Name] = fl.Value.String() })
	return set, rest, err
}

// prepare checks the flags and builds the sweep, every mistake the flags
// alone show being a usage error before anything starts. fromFile is true
// for --resume ID alone: the sweep then comes from the spec kept beside
// the history (withHistory), and r is nil here.
func (f *tuneFlags) prepare(e *env, set map[string]bool, vllmArgs []string) (r *tune.Runner, fromFile bool, err error) {
	if f.endpoint != "" {
		return nil, false, usagef("Tune is unavailable for an existing endpoint: it relaunches the server for each variant, and RigBench cannot relaunch a server it did not start; use --launch (or --demo)")
	}
	fromFile = f.resume != "" && len(f.vary) == 0
	if fromFile {
		if err := tune.CheckID(f.resume); err != nil {
			return nil, true, usagef("--resume: %v", err)
		}
		for _, name := range []string{"contexts", "concurrency", "objective", "constraint", "grid", "one-at-a-time", "demo", "launch", "sim-speed", "sim-profile", "model", "rig", "quality", "quality-dataset"} {
			if set[name] {
				return nil, true, usagef("--resume %s alone continues the sweep as it was started; --%s belongs to a new sweep (or repeat every flag of the sweep with --vary)", f.resume, name)
			}
		}
	} else if r, err = f.runner(e, set, vllmArgs); err != nil {
		return nil, false, err
	}
	f.saveFlags.keep(e)
	if f.jsonPath != "" {
		if err := checkWritable(f.jsonPath, &f.kept); err != nil {
			return nil, fromFile, usagef("%v", err)
		}
	}
	if f.resume != "" && f.noSave {
		return nil, fromFile, usagef("--resume finds the finished variants in the history: drop --no-save")
	}
	return r, fromFile, nil
}

// adviceRunner builds the sweep of a run's advice (tune.FromAdvice): the
// run is read from the history, its flags are the base and its target the
// sweep's; the other workload and target flags belong to a sweep of the
// user's own.
func (f *tuneFlags) adviceRunner(ctx context.Context, e *env, set map[string]bool, vllmArgs []string) (*tune.Runner, error) {
	for _, name := range []string{"vary", "contexts", "concurrency", "objective", "constraint", "grid", "one-at-a-time", "demo", "launch", "model", "resume", "no-save", "sim-profile"} {
		if set[name] {
			return nil, usagef("--from-advice sweeps what the run's advice names, on its cells, from its flags; --%s belongs to a sweep of your own", name)
		}
	}
	if len(vllmArgs) > 0 {
		return nil, usagef("--from-advice takes the run's own flags as the base: drop the vLLM flags after --")
	}
	h := historyFlags{db: f.db}
	db, run, err := h.oneRun(ctx, e, []string{f.fromAdvice})
	if err != nil {
		return nil, err
	}
	db.Close()
	spec, err := tune.FromAdvice(run, diagnose.Advise(run))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", rundoc.ShortID(run.UUID), err)
	}
	if f.quality != "" {
		spec.Quality, spec.QualityDataset = f.quality, f.qualityData
	}
	if set["sim-speed"] {
		if spec.SimSpeed, err = simSpeedOf(f.simSpeed); err != nil {
			return nil, usagef("%v", err)
		}
	}
	f.saveFlags.keep(e)
	if f.jsonPath != "" {
		if err := checkWritable(f.jsonPath, &f.kept); err != nil {
			return nil, usagef("%v", err)
		}
	}
	return f.specRunner(e, spec)
}

// withHistory saves each variant's run in db and, for --resume, finds the
// finished ones there; with fromFile the sweep is read from its kept spec.
// recs collects the variants' recorders as they start.
func (f *tuneFlags) withHistory(e *env, db *store.DB, r *tune.Runner, fromFile bool) (*tune.Runner, *[]*store.Recorder, error) {
	if fromFile {
		spec, err := tune.LoadSpec(tune.SpecDir(db.Path()), f.resume)
		if err != nil {
			return nil, nil, err
		}
		if r, err = f.specRunner(e, spec); err != nil {
			return nil, nil, err
		}
	}
	recs := new([]*store.Recorder)
	r.SpecDir = tune.SpecDir(db.Path())
	r.NoTelemetry = f.noTelemetry
	r.Observers = func(tune.Variant) []rundoc.Observer {
		rec := db.Recorder()
		*recs = append(*recs, rec)
		return []rundoc.Observer{rec}
	}
	if f.resume != "" {
		r.History = db.RunsTagged
	}
	return r, recs, nil
}

// progressPrinter prints a sweep's progress: a line per variant stage and
// per cell (not per second).
func progressPrinter(w io.Writer) func(tune.Progress) {
	var last string
	return func(p tune.Progress) {
		var msg string
		switch p.Stage {
		case "launching":
			msg = fmt.Sprintf("variant %d of %d: %s: starting (sweep ETA %s)", p.Variant, p.Variants, p.Label, rundoc.ShortDuration(p.ETA))
		case "measuring":
			msg = fmt.Sprintf("variant %d of %d: %s: cell %s (%d of %d), sweep ETA %s", p.Variant, p.Variants, p.Label, p.Cell, p.CellIndex, p.Cells, rundoc.ShortDuration(p.ETA))
		case "probing":
			msg = fmt.Sprintf("variant %d of %d: %s: quality probe (sweep ETA %s)", p.Variant, p.Variants, p.Label, rundoc.ShortDuration(p.ETA))
		case "skipped":
			msg = fmt.Sprintf("variant %d of %d: %s: already measured (run %s), skipped", p.Variant, p.Variants, p.Label, rundoc.ShortID(p.Result.RunID))
		case "failed":
			msg = fmt.Sprintf("variant %d of %d: %s: %s", p.Variant, p.Variants, p.Label, p.Result.Status)
			if why := strings.TrimSuffix(p.Result.Error, "."); why != "" {
				msg += ": " + why
			}
			if p.Result.Fix != "" {
				msg += " (" + p.Result.Fix + ")"
			}
		case "done":
			ready := fmt.Sprintf("%.1f s", p.Result.LoadS)
			if r := p.Result.Run; r != nil && r.Launch != nil && r.Launch.Startup != nil {
				ready = r.Launch.Startup.Text()
			}
			msg = fmt.Sprintf("variant %d of %d: %s: measured in %s (server ready after %s)", p.Variant, p.Variants, p.Label,
				rundoc.ShortDuration(time.Duration(p.Result.WallS*float64(time.Second))), ready)
		}
		if p.Stage == "measuring" && strings.HasPrefix(last, msg[:strings.Index(msg, "sweep ETA")]) {
			return
		}
		last = msg
		fmt.Fprintln(w, msg)
	}
}

// finish prints the sweep's table and verdict, writes --json, and says
// what was saved; a cancelled sweep exits 130 saying how to resume.
func (f *tuneFlags) finish(e *env, r *tune.Runner, res *tune.Result, runErr error, db *store.DB, recs *[]*store.Recorder) error {
	doc := res.Document()
	doc.Text(e.stdout)
	var errs []error
	if recs != nil {
		for _, rec := range *recs {
			if err := rec.Err(); err != nil {
				errs = append(errs, fmt.Errorf("the history could not save a variant's run completely: %w", err))
				break
			}
		}
	}
	if f.jsonPath != "" {
		if err := f.kept.Write(f.jsonPath, doc.Write); err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(e.stderr, "wrote %s\n", f.jsonPath)
		}
	}
	if db != nil {
		fmt.Fprintf(e.stderr, "runs saved in the history with the tag %s (rigbench-cli runs --tag %s)\n", tune.Tag(r.Spec.ID), tune.Tag(r.Spec.ID))
	}
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintf(e.stderr, "cancelled: finished variants are kept; finish the sweep with the same command and --resume %s\n", r.Spec.ID)
		return exitError{code: 130, err: errors.Join(errs...)}
	}
	measured := 0
	for _, v := range res.Variants {
		if v.Status == tune.Measured {
			measured++
		}
	}
	if measured == 0 && runErr == nil {
		runErr = errors.New("no variant could be measured: see the reasons above")
	}
	return errors.Join(append(errs, runErr)...)
}

// runner builds the sweep from the flags through tune.SpecInput, the Tune
// view's reader too; every mistake the flags alone show is a usage error
// before anything starts.
func (f *tuneFlags) runner(e *env, set map[string]bool, vllmArgs []string) (*tune.Runner, error) {
	if f.grid && f.oneAtATime {
		return nil, usagef("choose --grid or --one-at-a-time, not both")
	}
	in, err := f.specInput(e, set, vllmArgs)
	if err != nil {
		return nil, err
	}
	r, err := in.Runner(f.launch.options(f.model, f.saveFlags.db).launching(e))
	if errors.Is(err, tune.ErrNothingToVary) {
		return nil, usagef("%v (--vary FLAG=V1,V2)", err)
	}
	if err != nil {
		return nil, usagef("%v", flagError(err))
	}
	r.NoTelemetry = f.noTelemetry
	return r, nil
}

// specInput is the flags as tune.SpecInput takes them: a flag left out is
// empty (its default), and the target is run's (targetInput).
func (f *tuneFlags) specInput(e *env, set map[string]bool, vllmArgs []string) (tune.SpecInput, error) {
	target, err := f.targetInput(e, set, vllmArgs, true)
	if err != nil {
		return tune.SpecInput{}, err
	}
	in := tune.SpecInput{ID: f.resume, Vary: f.vary, Contexts: f.contexts, Concurrency: f.concurrency, Window: f.texts["duration"],
		Precision: f.texts["precision"], MaxDuration: f.texts["max-duration"], MaxOutput: f.maxOutput,
		Objective: f.objective, Constraints: f.constraints, Target: target, Quality: f.quality, QualityDataset: f.qualityData}
	if f.oneAtATime {
		in.Mode = tune.OneAtATime
	}
	return in, nil
}

// specRunner rebuilds a sweep's runner from its kept spec (tune.NewRunner):
// the demo's simulator settings, or launch's own launching for the base
// (no GPU request when the base has none), on the spec's rig.
func (f *tuneFlags) specRunner(e *env, spec tune.Spec) (*tune.Runner, error) {
	o := launchOptions{noGPU: spec.Base.GPUs == ""}
	return tune.NewRunner(spec, o.launching(e))
}

// attachQuality builds the probe the sweep's spec asks (Spec.Quality) for
// its runner, once r is known (nil: not yet, for --resume alone before the
// history is read).
func (f *tuneFlags) attachQuality(ctx context.Context, e *env, r *tune.Runner) error {
	if r == nil || r.Spec.Quality == "" || r.QualityProbe != nil {
		return nil
	}
	probe, _, err := qualityProbe(ctx, e, r.Spec.Quality, r.Spec.Target == tune.TargetDemo, r.Spec.QualityDataset, f.db, 0)
	if u := (usageError{}); errors.As(err, &u) {
		return usagef("--quality%s", strings.TrimPrefix(u.msg, "--probe"))
	}
	if err != nil {
		return err
	}
	r.QualityProbe = probe
	return nil
}
