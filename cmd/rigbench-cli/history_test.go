package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

const historyRefCSV = "../../engine/report/testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

// refCopy puts the reference CSV under its published name in dir.
func refCopy(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(historyRefCSV)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cliWithInput runs one command with input on its standard input and
// fails the test unless it exits 0.
func cliWithInput(t *testing.T, input string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(input), getenv: func(string) string { return "" }}
	if code := execute(context.Background(), e, args); code != 0 {
		t.Fatalf("rigbench-cli %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String()
}

// A measurements CSV whose file name names no GPU carries no hardware:
// delete still names the run and asks, rather than crash.
func TestDeleteImportedCSVAsks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	plain := filepath.Join(dir, "measurements.csv")
	if err := os.Rename(refCopy(t, dir), plain); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "import", plain, "--db", db)
	var list []runsJSON
	if err := json.Unmarshal([]byte(mustCLI(t, "runs", "--json", "--db", db)), &list); err != nil || len(list) != 1 {
		t.Fatalf("runs --json: %v, %d runs", err, len(list))
	}
	id := list[0].UUID
	if out := cliWithInput(t, "n\n", "delete", id[:8], "--db", db); !strings.Contains(out, "Delete run "+id[:8]) || !strings.Contains(out, "kept") {
		t.Errorf("delete of an imported CSV said %q", out)
	}
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("rigbench-cli %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// The whole history journey through the commands: import the published
// reference, list, show, export in every text format, round-trip the JSON
// through a second history, delete.
func TestHistoryCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	ref := refCopy(t, dir)

	out := mustCLI(t, "import", ref, "--db", db)
	if !strings.HasPrefix(out, "imported ") || !strings.Contains(out, "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0") {
		t.Errorf("import said %q", out)
	}
	if out := mustCLI(t, "import", "--db", db, ref); !strings.HasPrefix(out, "already in the history:") {
		t.Errorf("second import said %q, want it to be a no-op", out)
	}

	out = mustCLI(t, "runs", "--db", db)
	// The file name spells the model "agents-a1-4b-fp8"; import gives it
	// the "/" of the id the simulator knows, as the app's import does.
	for _, want := range []string{"RTX 3060 12GB", "agents/a1-4b-fp8", "vllm 0.32.0", "890.6", "2341", "[imported]"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs lacks %q:\n%s", want, out)
		}
	}
	var list []runsJSON
	if err := json.Unmarshal([]byte(mustCLI(t, "runs", "--json", "--db", db)), &list); err != nil || len(list) != 1 {
		t.Fatalf("runs --json: %v, %d runs", err, len(list))
	}
	id := list[0].UUID
	if list[0].BestDecodeTokS != 890.6 || list[0].Cells != 53 || !list[0].Imported {
		t.Errorf("runs --json = %+v", list[0])
	}
	if out := mustCLI(t, "runs", "--db", db, "--gpu", "4090"); !strings.Contains(out, "No runs") {
		t.Errorf("runs --gpu 4090 = %q", out)
	}

	out = mustCLI(t, "show", id[:8], "--db", db)
	for _, want := range []string{id, "GPU 0: RTX 3060 12GB", "890.6", "Prefill"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}

	// CSV export of the imported reference is the reference, byte for byte.
	csvOut := filepath.Join(dir, "out.csv")
	mustCLI(t, "export", id[:8], "--format", "csv", "-o", csvOut, "--db", db)
	got, _ := os.ReadFile(csvOut)
	want, _ := os.ReadFile(ref)
	if !bytes.Equal(got, want) {
		t.Errorf("export --format csv differs from the imported reference:\n%s", got)
	}
	if md := mustCLI(t, "export", id, "--format", "md", "--db", db); !strings.Contains(md, "## Decode: total tok/s · TTFT ms") {
		t.Errorf("export --format md:\n%s", md)
	}

	// JSON: export → import into another history → export is identical.
	first := mustCLI(t, "export", id, "--db", db)
	jsonFile := filepath.Join(dir, "run.json")
	if err := os.WriteFile(jsonFile, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	db2 := filepath.Join(dir, "other.db")
	mustCLI(t, "import", jsonFile, "--db", db2)
	if second := mustCLI(t, "export", id, "--format", "json", "--db", db2); second != first {
		t.Errorf("export → import → export differs:\n%s\n---\n%s", first, second)
	}

	// Without --yes the command asks; no answer, or any answer but yes,
	// keeps the run.
	if code, out, errOut := runCLI(t, "delete", id[:6], "--db", db); code == 0 ||
		!strings.Contains(out, "Delete run "+id[:8]) || !strings.Contains(errOut, "pass --yes") {
		t.Errorf("delete with nothing on stdin: exit %d, said %q / %q; want a refusal naming --yes", code, out, errOut)
	}
	if out := cliWithInput(t, "n\n", "delete", id[:6], "--db", db); !strings.Contains(out, "kept "+id[:8]) {
		t.Errorf("delete answered n said %q", out)
	}
	if out := mustCLI(t, "runs", "--db", db); !strings.Contains(out, id[:8]) {
		t.Errorf("run gone after the user declined:\n%s", out)
	}
	if out := cliWithInput(t, "yes\n", "delete", id[:6], "--db", db); !strings.Contains(out, "deleted "+id[:8]) {
		t.Errorf("delete answered yes said %q", out)
	}
	mustCLI(t, "import", jsonFile, "--db", db)
	if out := mustCLI(t, "delete", id[:6], "--yes", "--db", db); !strings.HasPrefix(out, "deleted "+id[:8]) {
		t.Errorf("delete --yes said %q", out)
	}
	if out := mustCLI(t, "runs", "--db", db); !strings.Contains(out, "No runs") {
		t.Errorf("runs after delete:\n%s", out)
	}
}

func TestHistoryCommandErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema":"rigbench.run/v9"}`), 0o644)
	good := refCopy(t, dir)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"show", "abcd", "--db", db}, 1, "no history at"},
		{[]string{"import", bad, good, "--db", db}, 1, `"rigbench.run/v9"`},
		{[]string{"show", "ffff", "--db", db}, 1, "no run has the ID ffff"},
		{[]string{"export", "abcd", "--format", "docx", "--db", db}, 2, "unknown format"},
		{[]string{"show", "--db", db}, 2, "give one run ID"},
		{[]string{"import", "--db", db}, 2, "give one or more files"},
		{[]string{"runs", "--since", "yesterday", "--db", db}, 2, "is not a date"},
	}
	for _, tc := range cases {
		code, _, errOut := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// The good file of the mixed import went in.
	if out := mustCLI(t, "runs", "--db", db); !strings.Contains(out, "RTX 3060") {
		t.Errorf("the valid file of a mixed import is missing:\n%s", out)
	}
}

// RIGBENCH_DB picks the history when --db is absent; --db wins over it.
func TestHistoryPathFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	envDB := filepath.Join(dir, "env.db")
	ref := refCopy(t, dir)
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(k string) string {
		if k == "RIGBENCH_DB" {
			return envDB
		}
		return ""
	}}
	if code := execute(context.Background(), e, []string{"import", ref}); code != 0 {
		t.Fatalf("import with RIGBENCH_DB: exit %d, %s", code, errb.String())
	}
	if _, err := os.Stat(envDB); err != nil {
		t.Errorf("RIGBENCH_DB was not used: %v", err)
	}
	flagDB := filepath.Join(dir, "flag.db")
	if code := execute(context.Background(), e, []string{"runs", "--db", flagDB}); code != 0 || !strings.Contains(out.String(), "No runs") {
		t.Errorf("--db did not win over RIGBENCH_DB: %s", out.String())
	}
}

// Import errors say what is wrong with the file in the user's terms, and a
// missing run is one sentence, not the reason twice.
func TestHistoryErrorWording(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	blank := filepath.Join(dir, "blank.csv")
	os.WriteFile(blank, []byte("\xef\xbb\xbf \n\n"), 0o644)
	folder := filepath.Join(dir, "adir")
	os.Mkdir(folder, 0o755)
	list := filepath.Join(dir, "list.json")
	os.WriteFile(list, []byte(`[{"schema":"rigbench.run/v1"}]`), 0o644)
	for _, tc := range []struct{ file, want, not string }{
		{list, "the file list.json holds a list, not one run", "read as a measurements CSV"},
		{empty, "the file empty.json is empty: export the run again", "CSV file is empty"},
		{blank, "the file blank.csv is empty: export the run again", "CSV file is empty"},
		{folder, "adir is a folder, not a file", "read as a measurements CSV"},
	} {
		code, _, errOut := runCLI(t, "import", tc.file, "--db", db)
		if code != 1 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, tc.not) {
			t.Errorf("import %s: exit %d, stderr %q; want %q", tc.file, code, errOut, tc.want)
		}
	}

	mustCLI(t, "import", refCopy(t, dir), "--db", db)
	for _, cmd := range []string{"show", "export", "delete", "compare"} {
		args := []string{cmd, "deadbeef", "--db", db}
		if cmd == "compare" {
			args = []string{cmd, "deadbeef", "deadbeef", "--db", db}
		}
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "no run has the ID deadbeef") || strings.Contains(errOut, "no run with that ID") {
			t.Errorf("%s deadbeef: exit %d, stderr %q; want one sentence", cmd, code, errOut)
		}
	}
}

// show prints what an imported reference run has, and labels what it
// lacks, instead of "Model - on -", "max output 0" and the import time as
// its start.
func TestShowImportedReference(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	named := refCopy(t, dir)
	out := mustCLI(t, "import", named, "--db", db)
	id := strings.Fields(out)[1]
	out = mustCLI(t, "show", id, "--db", db)
	for _, want := range []string{"Model agents/a1-4b-fp8 on vllm 0.32.0", "GPU 0: RTX 3060 12GB",
		"started: unknown (imported ", "Decode: total tok/s · TTFT (window 30s)\n",
		// The headline, as the app's Results card and the reports say it.
		"Headline: best 890.6 tok/s at 0×32 · one stream 49.6 tok/s · TTFT at 16K "} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "max output 0") || strings.Contains(out, "started 2") {
		t.Errorf("show prints unknowns as values:\n%s", out)
	}

	// The same CSV under a name that says nothing: model and GPU unknown.
	data, _ := os.ReadFile(named)
	plain := filepath.Join(dir, "measurements.csv")
	os.WriteFile(plain, data, 0o644)
	db2 := filepath.Join(dir, "other.db")
	out = mustCLI(t, "import", plain, "--db", db2)
	out = mustCLI(t, "show", strings.Fields(out)[1], "--db", db2)
	for _, want := range []string{"Model unknown (not recorded)\n", "GPU: unknown (not recorded)"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, " - ") || strings.Contains(out, "Model -") {
		t.Errorf("show prints dashes for unknowns:\n%s", out)
	}
}

// runs --rig keeps the runs of one rig, the list and show name it, and an
// import keeps it (the rig travels with the run's JSON).
func TestRunsFilterByRig(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	for i, name := range []string{"ssh://basement:2222", "local"} {
		r := oneCellRun()
		r.UUID = []string{"9a7c1e44-5b2d-4f6e-8a1b-0c2d3e4f5a61", "9a7c1e44-5b2d-4f6e-8a1b-0c2d3e4f5a62"}[i]
		r.Name = "on " + name
		r.Rig = &rundoc.Rig{Kind: map[bool]string{true: rundoc.RigSSH, false: rundoc.RigLocal}[i == 0], Name: name}
		var b bytes.Buffer
		if err := rundoc.WriteRun(&b, r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, "import", path, "--db", db)
	}
	out := mustCLI(t, "runs", "--db", db, "--rig", "BASEMENT")
	if !strings.Contains(out, "RIG") || !strings.Contains(out, "on ssh://basement:2222") || strings.Contains(out, "on local") {
		t.Errorf("runs --rig BASEMENT printed:\n%s", out)
	}
	if out := mustCLI(t, "runs", "--db", db, "--rig", "gpu-box"); !strings.Contains(out, "No runs match") {
		t.Errorf("runs --rig gpu-box printed:\n%s", out)
	}
	var list []struct{ Rig string }
	if err := json.Unmarshal([]byte(mustCLI(t, "runs", "--db", db, "--json")), &list); err != nil || len(list) != 2 || list[0].Rig == "" || list[1].Rig == "" {
		t.Errorf("runs --json: %+v, %v; want the rig of both runs", list, err)
	}
	if out := mustCLI(t, "show", "9a7c1e44-5b2d-4f6e-8a1b-0c2d3e4f5a61", "--db", db); !strings.Contains(out, "Rig: ssh://basement:2222\n") {
		t.Errorf("show does not name the rig:\n%s", out)
	}
}
