package rundoc

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestPlanInput: one reader for the plan both front ends type: the app's
// "Seconds per cell" 30 and the CLI's 30s give the same plan, the limits
// are the exported ones, and every refusal names its field.
func TestPlanInput(t *testing.T) {
	def, err := PlanInput{}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if !def.TrimContexts || def.Window != WindowAuto || def.Precision != DefaultPrecision || def.MaxOutput != DefaultMaxOutput || def.Prompts != PromptsShared {
		t.Errorf("defaults %+v", def)
	}
	app, err := PlanInput{Contexts: "0,16K", Concurrency: "1,8", Prefill: "none", Window: "30", MaxOutput: "1K"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := PlanInput{Contexts: "0, 16k", Concurrency: "1,8", Prefill: "0", Window: "30s", MaxOutput: "1024"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if app.Window != WindowFixed || app.DurationS != 30 || app.MaxOutput != 1024 || len(app.PrefillContexts) != 0 ||
		app.Contexts[1] != 16384 || app.Window != cli.Window || app.DurationS != cli.DurationS || app.MaxOutput != cli.MaxOutput {
		t.Errorf("app %+v, cli %+v", app, cli)
	}
	auto, err := PlanInput{Window: "AUTO", Precision: "2.5%", MaxDuration: "1m"}.Plan()
	if err != nil || auto.Precision != 0.025 || auto.DurationS != 60 {
		t.Errorf("auto %+v, %v", auto, err)
	}
	for _, tc := range []struct {
		in    PlanInput
		field Field
		says  string
	}{
		{PlanInput{Concurrency: "1,4097"}, FieldConcurrency, "from 1 to 4096"},
		{PlanInput{Concurrency: "2K"}, FieldConcurrency, "whole number"},
		{PlanInput{Contexts: "0,lots"}, FieldContexts, ""},
		{PlanInput{Prefill: "8K,?"}, FieldPrefill, ""},
		{PlanInput{Window: "0.5"}, FieldWindow, "from 1s to 1h"},
		{PlanInput{Window: "2h"}, FieldWindow, "from 1s to 1h"},
		{PlanInput{Window: "30s", Precision: "1%"}, FieldPrecision, "only to an auto window"},
		{PlanInput{Precision: "60%"}, FieldPrecision, "at most 50"},
		{PlanInput{MaxDuration: "2s"}, FieldMaxDuration, "from 5s"},
		{PlanInput{Prompts: "some"}, FieldPrompts, "shared"},
		{PlanInput{MaxOutput: "0"}, FieldMaxOutput, "at least 1 token"},
		{PlanInput{KVCapacity: "-5"}, FieldKVCapacity, "positive number of tokens"},
	} {
		_, err := tc.in.Plan()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v, want a %s error saying %q", tc.in, err, tc.field, tc.says)
			continue
		}
		if got := fe.In("--" + string(fe.Field)); !strings.HasPrefix(got, "--"+string(tc.field)) {
			t.Errorf("worded for the CLI: %q", got)
		}
	}
}

// FuzzPlanInput: whatever is typed, the reader either refuses it or
// returns a plan the engine accepts.
func FuzzPlanInput(f *testing.F) {
	f.Add("0,16K,max", "1,2,4,8", "8K", "auto", "1%", "30s", "8192", "")
	f.Add("", "4096,1", "none", "30", "", "", "1K", "36864")
	f.Add("-1", "0x10", "1e9", "1ns", "0", "1h1s", "max", "2147483648")
	f.Fuzz(func(t *testing.T, contexts, conc, prefill, window, precision, maxDur, maxOut, kv string) {
		in := PlanInput{Contexts: contexts, Concurrency: conc, Prefill: prefill, Window: window,
			Precision: precision, MaxDuration: maxDur, MaxOutput: maxOut, KVCapacity: kv}
		p, err := in.Plan()
		if err != nil {
			return
		}
		q := p
		q.Contexts, q.PrefillContexts = maxAsZero(p.Contexts), maxAsZero(p.PrefillContexts)
		if err := q.Validate(); err != nil {
			t.Fatalf("%+v: a plan the engine refuses: %v", in, err)
		}
		if p.KVCapacityOverride < 0 || p.MaxOutput < 1 {
			t.Fatalf("%+v: %+v", in, p)
		}
	})
}

// TestMaxOutputTooLargeIsSaidSo: --max-output 9223372036854775807 said
// "must be at least 1 token" (issue 36 item 10); a figure beyond any model
// says the bound it broke.
func TestMaxOutputTooLargeIsSaidSo(t *testing.T) {
	for _, in := range []string{"9223372036854775807", "99999999999999999999", "20000000"} {
		_, err := PlanInput{Contexts: "0", Concurrency: "1", MaxOutput: in}.Plan()
		if err == nil || !strings.Contains(err.Error(), "at most") || strings.Contains(err.Error(), "at least 1") {
			t.Errorf("max output %s: %v", in, err)
		}
	}
}

// TestPlanInputRendersThePlan: Plan.Input is the text PlanInput reads
// back as the same plan, the defaults included (the CLI's help and the
// app's placeholders show DefaultPlan().Input()), and an empty field reads
// as the default it stands for.
func TestPlanInputRendersThePlan(t *testing.T) {
	trimmed, err := PlanInput{}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	fixed := DefaultPlan()
	fixed.Contexts, fixed.Concurrency, fixed.PrefillContexts = []int{0, 16384, ContextMax}, []int{1, 4, 16}, nil
	fixed.Window, fixed.Precision, fixed.DurationS = WindowFixed, 0, 15
	fixed.Prompts, fixed.MaxOutput, fixed.KVCapacityOverride = PromptsUnique, 1000, 36864
	auto := DefaultPlan()
	auto.Precision, auto.DurationS = 0.025, 90
	prefillOnly := DefaultPlan()
	prefillOnly.Contexts = nil
	for _, p := range []Plan{DefaultPlan(), trimmed, fixed, auto, prefillOnly} {
		in := p.Input()
		back, err := in.Plan()
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Errorf("%+v\nrendered %+v\nread back %+v, %v", p, in, back, err)
		}
	}
	def := DefaultPlan().Input()
	if def.Contexts != "0,16K,32K,64K,128K,max" || def.MaxOutput != strconv.Itoa(DefaultMaxOutput) || def.Window != WindowAuto ||
		def.MaxDuration != DefaultDuration.String() || def.KVCapacity != "" {
		t.Errorf("defaults rendered %+v", def)
	}
	// Each default field, emptied, reads as what it rendered.
	for _, f := range PlanFields {
		in := def
		in.Set(f, "")
		got, err := in.Plan()
		want := DefaultPlan()
		want.TrimContexts = f == FieldContexts
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s empty: %+v, %v; want %+v", f, got, err, want)
		}
	}
}

// TestPlanInputSetByField: every field of PlanFields is one input of
// PlanInput, set and read by its name (the CLI's flag name).
func TestPlanInputSetByField(t *testing.T) {
	var in PlanInput
	for i, f := range PlanFields {
		in.Set(f, strconv.Itoa(i))
	}
	seen := map[string]bool{}
	for i, f := range PlanFields {
		if got := in.Text(f); got != strconv.Itoa(i) || seen[got] {
			t.Errorf("%s reads %q, want %d", f, got, i)
		}
		seen[in.Text(f)] = true
	}
	if reflect.ValueOf(in).NumField() != len(PlanFields) {
		t.Errorf("PlanInput has %d inputs, PlanFields names %d", reflect.ValueOf(in).NumField(), len(PlanFields))
	}
	in.Set("weights", "x")
	if in.Text("weights") != "" {
		t.Error("a field that is no plan input was set")
	}
}
