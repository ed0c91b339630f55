package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/internal/termtext"
	"github.com/rigbench/rigbench/store"
)

// The history commands: runs, show, export, import and delete. Each takes
// --db FILE (else $RIGBENCH_DB, else the user data folder).

func init() {
	register(&command{name: "runs", usage: "runs [--json] [--gpu TEXT] [--rig TEXT] [--model TEXT] [--tag TAG] [--since DATE] [--limit N] [--db FILE]",
		summary: "List the runs in the history, newest first.", run: runRuns})
	register(&command{name: "show", usage: "show ID [--db FILE]",
		summary: "Print one run of the history: facts, decode matrix and prefill table.", run: runShow})
	register(&command{name: "export", usage: "export ID [--format " + report.FormatNames() + "] [--chart KIND] [-o FILE] [--db FILE]",
		summary: "Write one run of the history as JSON, CSV, Markdown or a report to share.", run: runExport})
	register(&command{name: "import", usage: "import FILE… [--db FILE]",
		summary: "Add exported runs (JSON) or measurement CSVs (the reference format) to the history.", run: runImport})
	register(&command{name: "delete", usage: "delete ID [--yes] [--db FILE]",
		summary: "Remove one run and its measurements from the history (asks first; --yes does not).", run: runDelete})
}

// historyFlags is the --db flag every history command shares.
type historyFlags struct{ db string }

func (h *historyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.db, "db", "", "history database file (default $"+store.EnvDB+", else the user data folder)")
}

// open opens the history. With mustExist, a history that does not exist
// yet is an error that says so, rather than an empty file created by a
// command that only reads.
func (h *historyFlags) open(ctx context.Context, e *env, mustExist bool) (*store.DB, error) {
	path, err := store.ResolvePath(h.db, e.getenv)
	if err != nil {
		return nil, err
	}
	if mustExist {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("there is no history at %s yet; run a benchmark or import a run first, or pass --db FILE", path)
		}
	}
	// A history this user may not write is still listed and shown; a
	// command that writes says it is read-only when it does.
	return store.OpenForReading(ctx, path)
}

// parseArgs parses flags anywhere among the arguments ("export ID --format
// csv" and "export --format csv ID" both work) and returns the others.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitError{code: 0}
			}
			return nil, exitError{code: 2}
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		if args[0] == "--" {
			return append(rest, args[1:]...), nil
		}
		rest, args = append(rest, args[0]), args[1:]
	}
}

// runsJSON is one run of `runs --json`.
type runsJSON struct {
	UUID           string           `json:"uuid"`
	Name           string           `json:"name,omitempty"`
	Tags           []string         `json:"tags,omitempty"`
	CreatedAt      time.Time        `json:"created_at"`
	FinishedAt     time.Time        `json:"finished_at,omitzero"`
	Status         rundoc.RunStatus `json:"status"`
	Origin         string           `json:"origin,omitempty"`
	Imported       bool             `json:"imported,omitempty"`
	Simulated      bool             `json:"simulated,omitempty"`
	GPU            string           `json:"gpu,omitempty"`
	Model          string           `json:"model,omitempty"`
	Engine         string           `json:"engine,omitempty"`
	EngineVersion  string           `json:"engine_version,omitempty"`
	Flags          string           `json:"flags,omitempty"`
	Rig            string           `json:"rig,omitempty"`
	Cells          int              `json:"cells"`
	BestDecodeTokS float64          `json:"best_decode_tok_s,omitempty"`
	Prefill8KTokS  float64          `json:"prefill_8k_tok_s,omitempty"`
}

func runRuns(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("runs", e)
	var h historyFlags
	h.register(fs)
	asJSON := fs.Bool("json", false, "print the list as JSON")
	var f store.Filter
	fs.StringVar(&f.GPU, "gpu", "", "only runs whose GPU name contains TEXT")
	fs.StringVar(&f.Rig, "rig", "", "only runs on a rig whose name contains TEXT (local, ssh://basement, a Docker context)")
	fs.StringVar(&f.Model, "model", "", "only runs whose model contains TEXT")
	fs.StringVar(&f.Tag, "tag", "", "only runs with this tag")
	since := fs.String("since", "", "only runs started on or after DATE (YYYY-MM-DD)")
	fs.IntVar(&f.Limit, "limit", 0, "at most N runs (0: all)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if *since != "" {
		if f.Since, err = time.ParseInLocation("2006-01-02", *since, time.Local); err != nil {
			return usagef("--since %q is not a date like 2025-06-01", *since)
		}
	}
	db, err := h.open(ctx, e, false)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.List(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]runsJSON, len(list))
		for i, s := range list {
			out[i] = runsJSON(s)
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(list) == 0 && (f != store.Filter{}) {
		fmt.Fprintln(e.stdout, "No runs match these filters in the history ("+db.Path()+"); rigbench-cli runs without them lists every run.")
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "No runs in the history yet ("+db.Path()+").")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATUS\tGPU\tRIG\tMODEL\tENGINE\tDECODE TOK/S\tPREFILL 8K\tNAME")
	for _, s := range list {
		name := s.Name
		if s.Simulated {
			name = strings.TrimSpace("[simulated] " + name)
		}
		if s.Imported {
			name = strings.TrimSpace("[imported] " + name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", rundoc.ShortID(s.UUID), s.CreatedAt.Local().Format("2006-01-02 15:04"),
			s.Status, termtext.Safe(dash(s.GPU)), termtext.Safe(dash(s.Rig)), termtext.Safe(dash(s.Model)), termtext.Safe(dash(strings.TrimSpace(s.Engine+" "+s.EngineVersion))),
			figure(rundoc.FigTotalTokS, s.BestDecodeTokS), figure(rundoc.FigPromptTokS, s.Prefill8KTokS), termtext.Safe(name))
	}
	return tw.Flush()
}

// historyArg is " --db FILE" for a command to paste when the history at
// path is not the one the command finds by itself ("" when it is).
func historyArg(e *env, path string) string {
	if def, err := store.ResolvePath("", e.getenv); err == nil {
		if abs, err := filepath.Abs(def); err == nil && abs == path {
			return ""
		}
	}
	return (&saveFlags{db: path}).dbArg()
}

func runShow(ctx context.Context, e *env, args []string) error {
	db, r, err := runArg(ctx, e, "show", args)
	if err != nil {
		return err
	}
	defer db.Close()
	w := e.stdout
	title := r.Name
	if title == "" {
		title = "(unnamed)"
	}
	fmt.Fprintf(w, "Run %s  %s\n", termtext.Safe(r.UUID), termtext.Safe(title))
	fmt.Fprintf(w, "Status %s, %s", r.Status, startedText(r))
	if !r.FinishedAt.IsZero() {
		fmt.Fprintf(w, ", finished %s", r.FinishedAt.Local().Format("15:04"))
	}
	fmt.Fprintln(w)
	if r.Simulated {
		fmt.Fprintln(w, "Simulated server (demo mode): not a real card.")
	}
	switch {
	case r.Hardware != nil && len(r.Hardware.GPUs) > 0:
		for _, g := range r.Hardware.GPUs {
			fmt.Fprintf(w, "GPU %d: %s\n", g.Index, termtext.Safe(g.Name))
		}
	case r.Origin == rundoc.OriginImported || r.Hardware == nil:
		fmt.Fprintln(w, "GPU: unknown (not recorded)")
	case !r.Simulated:
		fmt.Fprintln(w, "GPU: none detected")
	}
	if r.Rig != nil {
		fmt.Fprintf(w, "Rig: %s\n", termtext.Safe(r.Rig.Name))
	}
	model := "Model unknown (not recorded)"
	if r.Server.Model != "" {
		model = "Model " + r.Server.Model
	}
	if engine := strings.TrimSpace(r.Server.Engine + " " + r.Server.Version); engine != "" {
		model += " on " + engine
	}
	fmt.Fprintln(w, termtext.Safe(model))
	if r.Launch != nil && r.Launch.ServeCommand != "" {
		fmt.Fprintf(w, "Launch: %s\n", termtext.Safe(r.Launch.ServeCommand))
	}
	if len(r.Tags) > 0 {
		fmt.Fprintf(w, "Tags: %s\n", termtext.Safe(strings.Join(r.Tags, ", ")))
	}
	if r.Notes != "" {
		fmt.Fprintf(w, "Notes: %s\n", termtext.SafeLines(r.Notes))
	}
	if r.Error != "" {
		fmt.Fprintf(w, "Error: %s\n", termtext.SafeLines(r.Error))
	}
	if len(r.Cells) > 0 {
		fmt.Fprintf(w, "Headline: %s\n", rundoc.HeadlineOf(r).Text())
	}
	fmt.Fprintln(w)
	printResults(w, r)
	if line := unreliableAdvice(r, "with the run's --endpoint, --demo or --launch flags and", historyArg(e, db.Path())); line != "" && r.Origin == rundoc.OriginMeasured {
		fmt.Fprintln(w, termtext.Safe(line))
	}
	return nil
}

func runExport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("export", e)
	var h historyFlags
	h.register(fs)
	formatName := fs.String("format", "json", "output format: "+report.FormatNames())
	out := fs.String("o", "", "write to FILE instead of standard output")
	var v visualFlags
	v.register(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	format, opts, err := v.output(*formatName)
	if err != nil {
		return err
	}
	var kept safefile.Guard
	keepHistory(&kept, e, h.db)
	if err := kept.Check(*out); err != nil { // before the history opens: it may be the file named
		return err
	}
	db, r, err := h.oneRun(ctx, e, rest)
	if err != nil {
		return err
	}
	defer db.Close()
	return writeOutput(ctx, e, &kept, *out, func(w io.Writer) error { return report.Write(w, format, []*rundoc.Run{r}, opts) })
}

func runImport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("import", e)
	var h historyFlags
	h.register(fs)
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("give one or more files")
	}
	db, err := h.open(ctx, e, false)
	if err != nil {
		return err
	}
	defer db.Close()
	// A reference file's name spells the model with "-" for "/": the
	// ids the history and the simulator know give it back its "/", as
	// the app's import does (report.NormaliseModel adds the simulator's).
	var known []string
	if listed, err := db.List(ctx, store.Filter{}); err == nil {
		for _, s := range listed {
			known = append(known, s.Model)
		}
	}
	failed := 0
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := report.OpenRun(ctx, path)
		if err == nil {
			r.Server.Model = report.NormaliseModel(r.Server.Model, known)
			known = append(known, r.Server.Model)
			var res store.ImportResult
			if res, err = db.ImportRun(ctx, r); err == nil {
				verb := "imported"
				switch res.Outcome {
				case store.ImportSame:
					verb = "already in the history:"
				case store.ImportCompleted:
					verb = fmt.Sprintf("completed with %d cell%s the history lacked:", res.Added, map[bool]string{true: "s"}[res.Added != 1])
				}
				fmt.Fprintf(e.stdout, "%s %s %s (%s)\n", verb, termtext.Safe(rundoc.ShortID(r.UUID)), displayName(r), termtext.Safe(path))
				continue
			}
		}
		if ctx.Err() != nil {
			return ctx.Err() // stopped by Ctrl-C, not a bad file
		}
		failed++
		fmt.Fprintf(e.stderr, "rigbench-cli import: %s: %s\n", termtext.Safe(path), termtext.SafeLines(err.Error()))
	}
	if failed > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d of %d files were not imported", failed, len(files))}
	}
	return nil
}

func runDelete(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("delete", e)
	var h historyFlags
	h.register(fs)
	yes := fs.Bool("yes", false, "delete without asking")
	fs.BoolVar(yes, "y", false, "short for --yes")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	db, r, err := h.oneRun(ctx, e, rest)
	if err != nil {
		return err
	}
	defer db.Close()
	if !*yes {
		// A run is a measurement that cannot be taken again exactly, and an
		// ID prefix may name a different run than the user thinks: say which
		// one and ask. Without an answer (a script, stdin closed) nothing is
		// deleted.
		fmt.Fprintf(e.stdout, "Delete run %s %q (%s, %s)? [y/N] ", rundoc.ShortID(r.UUID), displayName(r),
			r.CreatedAt.Local().Format("2006-01-02 15:04"), termtext.Safe(dash(r.Hardware.GPUNames())))
		answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
		case "":
			if answer == "" {
				fmt.Fprintln(e.stdout)
				return fmt.Errorf("no answer on standard input, so run %s was kept; pass --yes to delete without asking", rundoc.ShortID(r.UUID))
			}
			fallthrough
		default:
			fmt.Fprintf(e.stdout, "kept %s\n", rundoc.ShortID(r.UUID))
			return nil
		}
	}
	if err := db.Delete(ctx, r.UUID); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "deleted %s %s\n", rundoc.ShortID(r.UUID), displayName(r))
	return nil
}

// startedText says when the run started. An imported measurements CSV
// records no start time: its CreatedAt is the import, so it is labelled so
// rather than shown as a start.
func startedText(r *rundoc.Run) string {
	if r.Origin == rundoc.OriginImported {
		return "started: unknown (imported " + r.CreatedAt.Local().Format("2006-01-02 15:04") + ")"
	}
	return "started " + r.CreatedAt.Local().Format("2006-01-02 15:04")
}

// runArg parses the arguments of a command that takes one run ID and
// --db (show, advise) and reads that run. The caller closes db.
func runArg(ctx context.Context, e *env, name string, args []string) (*store.DB, *rundoc.Run, error) {
	fs := newFlagSet(name, e)
	var h historyFlags
	h.register(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, err
	}
	return h.oneRun(ctx, e, rest)
}

// oneRun opens the history and reads the one run the arguments name (an ID
// or a unique prefix of one). The caller closes db.
func (h *historyFlags) oneRun(ctx context.Context, e *env, rest []string) (*store.DB, *rundoc.Run, error) {
	if len(rest) != 1 {
		return nil, nil, usagef("give one run ID")
	}
	db, err := h.open(ctx, e, true)
	if err != nil {
		return nil, nil, err
	}
	r, err := db.Get(ctx, rest[0])
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, r, nil
}

// displayName is a run's title (rundoc.Run.Title) escaped for the terminal.
func displayName(r *rundoc.Run) string { return termtext.Safe(strings.TrimSpace(r.Title())) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func figure(f rundoc.Figure, v float64) string {
	if v == 0 {
		return "-"
	}
	return f.Format(v)
}
