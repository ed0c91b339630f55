package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/export"
)

// The CLI and the app are two front ends over one report writer: the same
// run from the same history gives byte-identical files in every format,
// and so does a comparison (issue 11).
func TestCLIAndAppExportTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	if code, _, errOut := runCLI(t, "import", refCSV, "--db", db); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, store.Filter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("history lists %d runs (%v), want 1", len(list), err)
	}
	id := list[0].UUID
	run, err := s.Get(ctx, id)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
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
