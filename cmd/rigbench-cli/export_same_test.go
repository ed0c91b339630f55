package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/export"
)

// The CLI and the app are two front ends over one report writer: the same
// run from the same history gives byte-identical files in every format,
// and so does a comparison (issue 11).
func TestCLIAndAppExportTheSameBytes(t *testing.T) {
	dir, db, id, run := importedReference(t)
	same := func(name string, cliArgs []string, runs []*rundoc.Run, f report.Format) {
		t.Helper()
		cliPath, appPath := filepath.Join(dir, "cli-"+name), filepath.Join(dir, "app-"+name)
		if code, _, errOut := runCLI(t, append(cliArgs, "--format", string(f), "-o", cliPath, "--db", db)...); code != 0 {
			t.Fatalf("%s: CLI exit %d: %s", name, code, errOut)
		}
		if err := export.WriteFile(appPath, f, runs); err != nil {
			t.Fatalf("%s: app: %v", name, err)
		}
		a, errA := os.ReadFile(cliPath)
		b, errB := os.ReadFile(appPath)
		if errA != nil || errB != nil || len(a) < 100 {
			t.Fatalf("%s: read %v %v, %d bytes", name, errA, errB, len(a))
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the CLI wrote %d bytes and the app %d, and they differ", name, len(a), len(b))
		}
	}
	for _, f := range report.Formats() {
		same("run"+f.Ext(), []string{"export", id}, []*rundoc.Run{run}, f)
	}
	for _, f := range []report.Format{report.Markdown, report.HTML, report.PNG, report.SVG} {
		same("compare"+f.Ext(), []string{"compare", id, id}, []*rundoc.Run{run, run}, f)
	}
}

// The app's "export everything" (issue 41) writes, into one folder, the
// very files the CLI's export writes format by format: each file is byte
// for byte `rigbench-cli export ID --format F` (PNG charts with --chart K
// --scale 2, the app's 2×), and nothing else is in the folder.
func TestExportEverythingMatchesTheCLI(t *testing.T) {
	dir, db, id, run := importedReference(t)
	runs := []*rundoc.Run{run}
	out := filepath.Join(dir, "everything")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	written, err := export.WriteEverything(out, runs, export.PNGScale)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{} // file name → CLI arguments
	for _, f := range []report.Format{report.JSON, report.CSV, report.Markdown, report.HTML} {
		want[report.FileName(runs, f)] = []string{"--format", string(f)}
	}
	for _, k := range chart.KindsFor(1) {
		want[export.ChartFileName(runs, report.PNG, k)] = []string{"--format", "png", "--chart", string(k), "--scale", "2"}
		want[export.ChartFileName(runs, report.SVG, k)] = []string{"--format", "svg", "--chart", string(k)}
	}
	if len(written) != len(want) {
		t.Errorf("wrote %d files, want %d", len(written), len(want))
	}
	for _, path := range written {
		name := filepath.Base(path)
		args, ok := want[name]
		if !ok {
			t.Errorf("unexpected file %s", name)
			continue
		}
		cliPath := filepath.Join(dir, "cli-"+name)
		if code, _, errOut := runCLI(t, append([]string{"export", id, "-o", cliPath, "--db", db}, args...)...); code != 0 {
			t.Fatalf("%s: CLI exit %d: %s", name, code, errOut)
		}
		a, errA := os.ReadFile(cliPath)
		b, errB := os.ReadFile(path)
		if errA != nil || errB != nil || len(a) < 100 || !bytes.Equal(a, b) {
			t.Errorf("%s: the CLI wrote %d bytes and the app %d (%v %v), and they differ", name, len(a), len(b), errA, errB)
		}
	}
}

// importedReference imports the reference CSV through the CLI into a new
// history in a temporary folder, and returns the folder, the history, the
// run's id and the run as the history reads it back.
func importedReference(t *testing.T) (dir, db, id string, run *rundoc.Run) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "history.db")
	if code, _, errOut := runCLI(t, "import", refCSV, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.List(ctx, store.Filter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("history lists %d runs (%v), want 1", len(list), err)
	}
	id = list[0].UUID
	if run, err = s.Get(ctx, id); err != nil {
		t.Fatal(err)
	}
	return dir, db, id, run
}
