package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/tuneview"
)

// sameOutcome fails unless the two readings of one text agree: the same
// value, or the same error (the same field and message of a
// *rundoc.FieldError, or the same sentinel), each front end wording only
// the field's name.
func sameOutcome[T any](t *testing.T, what string, cli T, cliErr error, app T, appErr error) {
	t.Helper()
	var cf, af *rundoc.FieldError
	switch {
	case cliErr == nil && appErr == nil:
		if !reflect.DeepEqual(cli, app) {
			t.Errorf("%s: the CLI reads\n%+v\nthe app\n%+v", what, cli, app)
		}
	case errors.As(cliErr, &cf):
		if !errors.As(appErr, &af) || *af != *cf {
			t.Errorf("%s: the CLI says %v (field %q), the app %v", what, cliErr, cf.Field, appErr)
		}
	case errors.Is(cliErr, tune.ErrNothingToVary):
		if !errors.Is(appErr, tune.ErrNothingToVary) {
			t.Errorf("%s: the CLI says %v, the app %v", what, cliErr, appErr)
		}
	default:
		t.Errorf("%s: the CLI says %v, the app %v; want the same value or the same field error", what, cliErr, appErr)
	}
}

// wantField fails unless err is what a case expects: nil for "", else a
// *rundoc.FieldError about that field.
func wantField(t *testing.T, what string, err error, want rundoc.Field) {
	t.Helper()
	var fe *rundoc.FieldError
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want it read", what, err)
	case want != "" && (!errors.As(err, &fe) || fe.Field != want):
		t.Errorf("%s: %v, want an error about %s", what, err, want)
	}
}

// TestTargetTextsReadAlike feeds the same texts to the CLI's --endpoint,
// --api-key and --weights-gib and to the app's target chooser (URL, API
// key, Model size): both fill session.TargetInput, whose reading gives the
// same target or the same field error.
func TestTargetTextsReadAlike(t *testing.T) {
	test.NewTempApp(t)
	for _, c := range []struct {
		url, key, weights string
		want              rundoc.Field
	}{
		{"http://127.0.0.1:8000", "sk-1", "4.61", ""},
		{"127.0.0.1:8000", "", "", ""}, // no scheme: what the client reaches, in both
		{"https://box.lan/v1/chat/completions", "", "12", ""},
		{"ftp://box", "", "", session.FieldEndpoint},
		{"http://", "", "", session.FieldEndpoint},
		{"http://127.0.0.1:8000", "", "4,6", session.FieldWeightsGiB},
		{"http://127.0.0.1:8000", "", "0", session.FieldWeightsGiB},
		{"http://127.0.0.1:8000", "", "1e7", session.FieldWeightsGiB},
		{"http://127.0.0.1:8000", "", "NaN", session.FieldWeightsGiB},
	} {
		var f runFlags
		e, _, _ := launchEnv(nil)
		args := []string{"--endpoint", c.url, "--api-key", c.key}
		if c.weights != "" {
			args = append(args, "--weights-gib", c.weights)
		}
		set, rest, err := f.parse(e, args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		cliIn, err := f.targetInput(e, set, rest, false)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		cli, cliErr := cliIn.Options(session.Launching{})

		ch := target.NewChooser(target.Endpoint)
		ch.Set(target.Choice{Kind: target.Endpoint, URL: c.url, APIKey: c.key, WeightsGiB: c.weights})
		app, appErr := ch.Input().Options(session.Launching{})
		sameOutcome(t, strings.Join(args, " "), cli, cliErr, app, appErr)
		wantField(t, strings.Join(args, " "), cliErr, c.want)
		if c.want == "" && (cli.Kind != session.Endpoint || cli.APIKey != c.key || cli.Endpoint == "") {
			t.Errorf("%q read as %+v", args, cli)
		}
	}
}

// sweepTexts are the fields of a sweep both front ends take as text.
type sweepTexts struct {
	vary                                       []string
	oneAtATime                                 bool
	contexts, concurrency, window, obj, constr string
}

// cliSweep reads t as `rigbench-cli tune --demo` does.
func cliSweep(t *testing.T, s sweepTexts) (tune.Spec, error) {
	args := []string{"--demo", "--no-save", "--contexts", s.contexts, "--concurrency", s.concurrency, "--duration", s.window,
		"--objective", s.obj}
	for _, v := range s.vary {
		args = append(args, "--vary", v)
	}
	if s.constr != "" {
		args = append(args, "--constraint", s.constr)
	}
	if s.oneAtATime {
		args = append(args, "--one-at-a-time")
	}
	var f tuneFlags
	e, _, _ := launchEnv(nil)
	set, rest, err := f.parse(e, args)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	in, err := f.specInput(e, set, rest)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return in.Spec()
}

// appSweep reads t as the Tune view does on the demo: each flag added with
// Add (whose error is the one the CLI's --vary gives), the form's input
// with the demo as the root fills it in.
func appSweep(s sweepTexts) (tune.Spec, error) {
	var built tune.Spec
	var buildErr error
	v := tuneview.New(tuneview.Backend{Sweep: func(in tune.SpecInput) (*tune.Runner, error) {
		in.Target = session.TargetInput{Kind: session.Demo, SimSpeed: "1"}
		built, buildErr = in.Spec()
		return nil, errors.New("not started in this test")
	}})
	for _, d := range s.vary {
		flag, values, _ := strings.Cut(d, "=")
		if err := v.AddDimension(flag, values); err != nil {
			return tune.Spec{}, &rundoc.FieldError{Field: tune.FieldVary, Msg: err.Error()}
		}
	}
	if s.oneAtATime {
		v.SetMode(tune.OneAtATime)
	} else {
		v.SetMode(tune.Grid)
	}
	v.SetWorkload(s.contexts, s.concurrency, s.window)
	v.SetObjective(s.obj, s.constr)
	return built, buildErr
}

// TestSweepTextsReadAlike feeds the same texts to the CLI's tune flags and
// to the Tune view's form: both fill tune.SpecInput, whose reading gives
// the same sweep (its fresh id aside) or the same field error.
func TestSweepTextsReadAlike(t *testing.T) {
	test.NewTempApp(t)
	ok := sweepTexts{vary: []string{"kv-cache-dtype=auto,fp8"}, contexts: "1K,16K", concurrency: "8,32", window: "auto",
		obj: "total-tok-s@16Kx32", constr: "ttft_p90<=2s"}
	with := func(change func(*sweepTexts)) sweepTexts {
		s := ok
		s.vary = append([]string(nil), ok.vary...)
		change(&s)
		return s
	}
	for _, c := range []struct {
		name string
		s    sweepTexts
		want rundoc.Field // "" to read; ErrNothingToVary has none
	}{
		{"a grid", ok, ""},
		{"one at a time, fixed 30 s", with(func(s *sweepTexts) {
			s.oneAtATime, s.window = true, "30s"
			s.vary = append(s.vary, "max-num-seqs=64,128")
		}), ""},
		{"a switch, default cell", with(func(s *sweepTexts) {
			s.vary, s.obj, s.constr = []string{"enable-prefix-caching=on,off"}, "total-tok-s", ""
		}), ""},
		{"8K contexts, seconds", with(func(s *sweepTexts) { s.contexts, s.window, s.obj = "8K", "20", "" }), ""},
		{"no contexts", with(func(s *sweepTexts) { s.contexts = "" }), rundoc.FieldContexts},
		{"no concurrency", with(func(s *sweepTexts) { s.concurrency = "none" }), rundoc.FieldConcurrency},
		{"a bad level", with(func(s *sweepTexts) { s.concurrency = "1,x" }), rundoc.FieldConcurrency},
		{"a bad window", with(func(s *sweepTexts) { s.window = "30 parsecs" }), rundoc.FieldWindow},
		{"a cell not in the workload", with(func(s *sweepTexts) { s.obj = "total-tok-s@2Kx1" }), tune.FieldObjective},
		{"an unknown objective", with(func(s *sweepTexts) { s.obj = "fastest" }), tune.FieldObjective},
		{"a bad constraint", with(func(s *sweepTexts) { s.constr = "ttft_p90<=2 fortnights" }), tune.FieldConstraint},
		{"an unknown figure", with(func(s *sweepTexts) { s.constr = "speed>=3" }), tune.FieldConstraint},
		{"a value vLLM refuses", with(func(s *sweepTexts) { s.vary = []string{"kv-cache-dtype=auto,int3"} }), tune.FieldVary},
		{"a secret flag", with(func(s *sweepTexts) { s.vary = []string{"api-key=a,b"} }), tune.FieldVary},
		{"nothing to vary", with(func(s *sweepTexts) { s.vary = nil }), "nothing"},
	} {
		name, s := c.name, c.s
		cli, cliErr := cliSweep(t, s)
		app, appErr := appSweep(s)
		cli.ID, app.ID = "", ""
		sameOutcome(t, name, cli, cliErr, app, appErr)
		if c.want == "nothing" {
			if !errors.Is(cliErr, tune.ErrNothingToVary) {
				t.Errorf("%s: %v, want %v", name, cliErr, tune.ErrNothingToVary)
			}
			continue
		}
		wantField(t, name, cliErr, c.want)
		if name == "a grid" && (cliErr != nil || len(cli.Variants()) != 2 || len(cli.Constraints) != 1 || cli.Target != tune.TargetDemo) {
			t.Errorf("the grid read as %+v, %v", cli, cliErr)
		}
	}
}
