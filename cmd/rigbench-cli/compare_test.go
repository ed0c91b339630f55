package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const refCSV = "../../engine/report/testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

// refCopies gives two paths to the reference CSV (the copy kept under
// engine/report/testdata, reached two ways) to compare a run with itself.
func refCopies(t *testing.T) (string, string) {
	t.Helper()
	if _, err := os.Stat(refCSV); err != nil {
		t.Fatalf("reference run not available: %v", err)
	}
	return refCSV, "../../engine/report/../report/testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"
}

func TestCompareMarkdownFromFiles(t *testing.T) {
	a, b := refCopies(t)
	code, out, errOut := runCLI(t, "compare", a, "--format", "md", b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "| 0 | 32 | 890.6 | 890.6 | 0.0% |") {
		t.Fatalf("markdown lacks the C=0 N=32 row:\n%s", out)
	}
}

func TestCompareWritesFiles(t *testing.T) {
	a, b := refCopies(t)
	dir := t.TempDir()
	for _, f := range []struct{ format, magic string }{{"html", "<!DOCTYPE html>"}, {"png", "\x89PNG"}, {"svg", "<?xml"}} {
		path := filepath.Join(dir, "cmp."+f.format)
		code, _, errOut := runCLI(t, "compare", a, b, "--format", f.format, "-o", path, "--chart", "matrix")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f.format, code, errOut)
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.HasPrefix(data, []byte(f.magic)) {
			t.Fatalf("%s: file does not start with %q (err %v)", f.format, f.magic, err)
		}
	}
}

func TestCompareBadUsage(t *testing.T) {
	a, _ := refCopies(t)
	dir := t.TempDir()
	if code, _, _ := runCLI(t, "compare", a); code != 2 {
		t.Errorf("one run: exit %d, want 2", code)
	}
	if code, _, errOut := runCLI(t, "compare", a, a, "--format", "pdf"); code != 2 || !strings.Contains(errOut, "unknown format") {
		t.Errorf("bad format: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut := runCLI(t, "compare", a, "nosuchid", "--db", filepath.Join(dir, "none.db"))
	if code != 1 || !strings.Contains(errOut, "neither a file nor a run") {
		t.Errorf("unknown ID: exit %d, stderr %q", code, errOut)
	}
}
