package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
)

func init() {
	register(&command{
		name:    "compare",
		usage:   "compare ID|FILE ID|FILE… [--format html|md|png|svg] [--chart KIND] [-o FILE] [--db FILE]",
		summary: "Compare 2–6 runs (history IDs, exported JSON or reference CSV files) as HTML, Markdown or a chart.",
		run:     runCompare,
	})
}

// visualFlags are the flags of the picture formats, shared by compare and
// export.
type visualFlags struct {
	chart         string
	width, height int
	scale         float64
	dark          bool
}

func (v *visualFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&v.chart, "chart", "", "chart for png/svg: matrix, decode, per-request, ttft, prefill, energy or pareto (the trade-off of a comparison) (default: matrix for one run, decode for a comparison)")
	fs.IntVar(&v.width, "width", chart.DefaultWidth, "chart width in pixels")
	fs.IntVar(&v.height, "height", chart.DefaultHeight, "chart height in pixels")
	fs.Float64Var(&v.scale, "scale", 1, "PNG pixel density (2 for a HiDPI screen)")
	fs.BoolVar(&v.dark, "dark", false, "dark chart palette")
}

// output reads --format and the picture flags into the report writer's
// format and options; a bad value is a usage error.
func (v visualFlags) output(formatName string) (report.Format, report.Options, error) {
	format, err := report.ParseFormat(formatName)
	if err != nil {
		return "", report.Options{}, usagef("%v", err)
	}
	opts, err := v.options()
	return format, opts, err
}

// options are the report options of the flags.
func (v visualFlags) options() (report.Options, error) {
	o := report.Options{Width: v.width, Height: v.height, Scale: v.scale, Dark: v.dark}
	if v.chart != "" {
		kind, err := chart.ParseKind(v.chart)
		if err != nil {
			return o, usagef("%v", err)
		}
		o.Chart = kind
	}
	return o, nil
}

func runCompare(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("compare", e)
	formatName := fs.String("format", "html", "output: html, md, png or svg")
	out := fs.String("o", "", "write to FILE instead of standard output")
	db := fs.String("db", "", "history database file (default $RIGBENCH_DB, else the user data folder)")
	var v visualFlags
	v.register(fs)
	ids, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(ids) < 2 {
		return usagef("give at least two runs to compare")
	}
	if len(ids) > chart.MaxRuns {
		return fmt.Errorf("a comparison shows at most %d runs, not %d: pick fewer", chart.MaxRuns, len(ids))
	}
	format, opts, err := v.output(*formatName)
	if err != nil {
		return err
	}
	if (format == report.PNG || format == report.SVG) && *out == "" && isTerminal(e.stdout) {
		return fmt.Errorf("a %s chart is binary or long: pass -o FILE", format)
	}
	var kept safefile.Guard
	keepHistory(&kept, e, *db)
	for _, id := range ids {
		kept.Keep(id, "a run this command compares")
	}
	runs, err := loadRuns(ctx, e, *db, ids)
	if err != nil {
		return err
	}
	return writeOutput(ctx, e, &kept, *out, func(w io.Writer) error { return report.Write(w, format, runs, opts) })
}

// writeOutput runs write against -o FILE, by the safe-file rules (a
// regular file is replaced only when writing succeeds), or standard
// output. To standard output the whole text is rendered first, so a failed
// render prints nothing half-way. A render stops at its next write after
// Ctrl-C (and a file is then left as it was).
//
// kept names the files the command uses (its history, its inputs): -o
// never replaces one of them.
func writeOutput(ctx context.Context, e *env, kept *safefile.Guard, path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		var buf bytes.Buffer
		if err := write(ctxWriter{ctx, &buf}); err != nil {
			return err
		}
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	if err := kept.Check(path); err != nil {
		return err
	}
	if err := safefile.Write(path, func(w io.Writer) error { return write(ctxWriter{ctx, w}) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", path)
	return nil
}

// loadRuns resolves each argument to a run: a path to an exported JSON run
// or a measurements CSV (the reference format) when such a file exists,
// else a history ID (UUID or prefix). The history opens only when needed.
func loadRuns(ctx context.Context, e *env, dbFlag string, ids []string) ([]*rundoc.Run, error) {
	var db *store.DB
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	runs := make([]*rundoc.Run, 0, len(ids))
	var fromFiles []*rundoc.Run
	for _, id := range ids {
		if st, err := os.Stat(id); err == nil && !st.IsDir() {
			r, err := report.OpenRun(ctx, id)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
			fromFiles = append(fromFiles, r)
			continue
		}
		if db == nil {
			path, err := store.ResolvePath(dbFlag, e.getenv)
			if err != nil {
				return nil, err
			}
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("%q is neither a file nor a run in the history (there is no history at %s yet); check the ID or path", id, path)
			}
			if db, err = store.Open(ctx, path); err != nil {
				return nil, err
			}
		}
		r, err := db.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	// A file's model spelled from its name ("agents-a1-4b-fp8") is the
	// model the other runs name ("agents/a1-4b-fp8"), as import reads it,
	// so the comparison does not call it a difference.
	var known []string
	for _, r := range runs {
		known = append(known, r.Server.Model)
	}
	for _, r := range fromFiles {
		r.Server.Model = report.NormaliseModel(r.Server.Model, known)
	}
	return runs, nil
}

// isTerminal reports whether w is a character device (a terminal), where
// binary output would garble the screen.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
