package main

import (
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/runview"
)

// planTexts are typed into every plan input of both front ends: token
// counts with the K suffix, zero, a negative number, a word, nothing,
// lists, durations, percentages and keywords, so every field sees texts it
// takes and texts it refuses.
var planTexts = []string{"8K", "36K", "0", "-1", "abc", "", " ", "1,4,16", "16k, max", "none", "30", "30s",
	"auto", "2.5%", "1m", "unique", "8192", "4097", "2147483648"}

// cliPlan is the plan `run` reads from args (plan flags only), or its
// error as the CLI words it.
func cliPlan(t *testing.T, args ...string) (rundoc.Plan, error) {
	t.Helper()
	var f runFlags
	set, _, err := f.parse(&env{stdout: io.Discard, stderr: io.Discard}, args)
	if err != nil || set == nil {
		t.Fatalf("%v: the flags do not parse: %v", args, err)
	}
	return f.plan(set)
}

// TestPlanTextReadsTheSameInBothFrontEnds (issue 42 items 1 and 2): each
// text typed into one plan input reads as the same plan in the CLI (the
// flag named as the field) and in the app's Run form (the field of that
// label), which is the plan rundoc.PlanInput reads; or both refuse it with
// the reader's error, worded with the flag in one and the label in the
// other. The number flags once refused "8K" ("invalid value … parse
// error") where the form took it, and an empty Contexts box meant none in
// the app and the defaults in the CLI.
func TestPlanTextReadsTheSameInBothFrontEnds(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	inApp := map[rundoc.Field]bool{}
	taken, refused := 0, 0
	for _, field := range rundoc.PlanFields {
		flagName := "--" + string(field)
		for _, text := range planTexts {
			var in rundoc.PlanInput
			in.Set(field, text)
			want, wantErr := in.Plan()
			cli, cliErr := cliPlan(t, flagName+"="+text)
			// The app has no field for some inputs (Prompts is a choice;
			// the window's precision and longest length keep their
			// defaults): the CLI alone is held to the reader there.
			app, appErr, typed := want, wantErr, v.SetPlanField(field, text)
			if typed {
				inApp[field] = true
				app, appErr = v.Plan()
				v.SetPlanField(field, "")
			}
			if wantErr == nil {
				taken++
				if cliErr != nil || appErr != nil || !reflect.DeepEqual(cli, want) || !reflect.DeepEqual(app, want) {
					t.Errorf("%s %q: the reader's plan %+v\nCLI %+v (%v)\napp %+v (%v)", field, text, want, cli, cliErr, app, appErr)
				}
				continue
			}
			refused++
			cliWords, appWords := wantErr.Error(), wantErr.Error()
			var fe *rundoc.FieldError
			if errors.As(wantErr, &fe) {
				cliWords, appWords = fe.In("--"+string(fe.Field)), fe.In(runview.FieldLabel(fe.Field))
			}
			if cliErr == nil || cliErr.Error() != cliWords {
				t.Errorf("%s %q: the CLI says %v, want %q", flagName, text, cliErr, cliWords)
			}
			if typed && (appErr == nil || appErr.Error() != appWords) {
				t.Errorf("%s %q: the app says %v, want %q", runview.FieldLabel(field), text, appErr, appWords)
			}
		}
	}
	if taken == 0 || refused == 0 {
		t.Errorf("%d texts taken, %d refused: the table proves nothing", taken, refused)
	}
	for _, field := range []rundoc.Field{rundoc.FieldContexts, rundoc.FieldConcurrency, rundoc.FieldPrefill,
		rundoc.FieldWindow, rundoc.FieldMaxOutput, rundoc.FieldKVCapacity} {
		if !inApp[field] {
			t.Errorf("the app's form has no field for %s to compare", field)
		}
	}

	// What the issue typed, spelled out.
	p, err := cliPlan(t, "--max-output", "8K", "--kv-capacity", "36K", "--contexts", "")
	if err != nil || p.MaxOutput != 8192 || p.KVCapacityOverride != 36864 || !p.TrimContexts ||
		!reflect.DeepEqual(p.Contexts, rundoc.DefaultContexts) {
		t.Errorf("--max-output 8K --kv-capacity 36K --contexts '': %+v, %v", p, err)
	}
	v.SetPlanField(rundoc.FieldMaxOutput, "8K")
	v.SetPlanField(rundoc.FieldKVCapacity, "36K")
	if a, err := v.Plan(); err != nil || !reflect.DeepEqual(a, p) {
		t.Errorf("the app's Max output 8K, KV capacity 36K: %+v, %v; the CLI's %+v", a, err, p)
	}
}

// TestPlanDefaultsComeFromRundoc (issue 42 item 2): `run --help` (each
// plan flag's default and the synopsis) and the app's Run form (each
// field's placeholder) show rundoc's defaults as rundoc renders them
// (DefaultPlan().Input()), so a default changed there changes both.
func TestPlanDefaultsComeFromRundoc(t *testing.T) {
	def := rundoc.DefaultPlan().Input()
	code, _, help := runCLI(t, "run", "--help")
	if code != 0 {
		t.Fatalf("run --help exit %d", code)
	}
	synopsis, flags, _ := strings.Cut(help, "\nFlags:\n")
	blocks := map[string]string{}
	for _, b := range strings.Split(flags, "\n  --") {
		name, _, _ := strings.Cut(strings.TrimPrefix(b, "  --"), " ")
		name, _, _ = strings.Cut(name, "\n")
		blocks[name] = b
	}
	test.NewTempApp(t)
	v := runview.New(nil)
	shown := 0
	for _, field := range rundoc.PlanFields {
		want := def.Text(field)
		if want == "" {
			continue // no default: the server's KV capacity
		}
		b, ok := blocks[string(field)]
		if !ok || !strings.Contains(b, "(default "+want+")") {
			t.Errorf("run --help, --%s: want (default %s) in\n%s", field, want, b)
		}
		if !strings.Contains(synopsis, "--"+string(field)+" "+want) {
			t.Errorf("run's synopsis lacks --%s %s:\n%s", field, want, synopsis)
		}
		if text, placeholder, ok := v.PlanField(field); ok {
			shown++
			if text != "" || placeholder != want {
				t.Errorf("the app's %s shows %q over the placeholder %q, want it empty over %q", runview.FieldLabel(field), text, placeholder, want)
			}
		}
	}
	if shown < 5 {
		t.Errorf("the app's form showed %d of the defaults, want its 5 fields that have one", shown)
	}
}

// TestRunTakesTokenSuffixes (issue 42 item 1): the command the issue
// typed runs, and its run document records 8K and 36K as tokens.
func TestRunTakesTokenSuffixes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.json")
	code, stdout, stderr := runCLI(t, "run", "--demo", "--sim-speed", "20", "--max-output", "8K", "--kv-capacity", "36K",
		"--contexts", "0", "--concurrency", "1", "--prefill", "none", "--duration", "2s", "--no-save", "--no-telemetry", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	run := readRunFile(t, out)
	if run.Plan.MaxOutput != 8192 || run.Plan.KVCapacityOverride != 36864 || len(run.Cells) != 1 {
		t.Errorf("plan %+v, %d cells", run.Plan, len(run.Cells))
	}
}

// TestQuickPlanIsTheAppsFirstPlan (issue 41, major 1): `run --quick` reads
// as the app's Quick plan button, which is rundoc.QuickPlan; a plan flag
// given beside it still wins, and without it the full matrix is the plan.
func TestQuickPlanIsTheAppsFirstPlan(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	v.PickQuickPlan()
	app, err := v.Plan()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := cliPlan(t, "--quick")
	if err != nil {
		t.Fatal(err)
	}
	if want := rundoc.QuickPlan(); !reflect.DeepEqual(cli, want) || !reflect.DeepEqual(app, want) {
		t.Errorf("quick plan: CLI %+v\napp %+v\nwant %+v", cli, app, want)
	}
	two, err := cliPlan(t, "--quick", "--concurrency", "2")
	if err != nil {
		t.Fatal(err)
	}
	if q := rundoc.QuickPlan(); !reflect.DeepEqual(two.Concurrency, []int{2}) || !reflect.DeepEqual(two.Contexts, q.Contexts) {
		t.Errorf("--quick --concurrency 2: %v × %v, want %v × [2]", two.Contexts, two.Concurrency, q.Contexts)
	}
	v.PickFullMatrix()
	full, _ := v.Plan()
	plain, _ := cliPlan(t)
	if !reflect.DeepEqual(full, plain) || reflect.DeepEqual(full, cli) {
		t.Errorf("Full matrix %+v, CLI without --quick %+v (quick %+v)", full, plain, cli)
	}
}
