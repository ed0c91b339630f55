package runview

import (
	"reflect"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestPlanFormStartsOnTheDefaults (issue 42 item 2): the form opens with
// every field empty, showing rundoc's default as its placeholder, and reads
// as the CLI's run with no plan flag does (the default contexts trimmed to
// what the server holds), not as an explicit list of them; a restored plan
// comes back as the same plan, a field at its default empty again and a
// prefill-only plan's Contexts "none" (an empty box would be the defaults).
func TestPlanFormStartsOnTheDefaults(t *testing.T) {
	test.NewTempApp(t)
	f := newPlanForm(func() {})
	def := rundoc.DefaultPlan().Input()
	for _, field := range formFields {
		e := f.entries[field]
		want := def.Text(field)
		if field == rundoc.FieldKVCapacity {
			want = "reported" // the server's; the default has none
		}
		if field == rundoc.FieldRequestCount {
			want = "4 × N" // K of a burst cell, by its concurrency
		}
		if e.Text != "" || e.PlaceHolder != want {
			t.Errorf("%s starts %q with placeholder %q, want empty showing %q", FieldLabel(field), e.Text, e.PlaceHolder, want)
		}
	}
	got, err := f.plan()
	want, werr := rundoc.PlanInput{}.Plan()
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) || !got.TrimContexts {
		t.Errorf("empty form %+v (%v)\nwant the CLI's defaults %+v (%v)", got, err, want, werr)
	}

	custom := rundoc.DefaultPlan()
	custom.Contexts, custom.Concurrency, custom.PrefillContexts = []int{0, 16384}, []int{1, 8}, []int{8192}
	custom.Window, custom.Precision, custom.DurationS, custom.MaxOutput = rundoc.WindowFixed, 0, 30, 1024
	custom.Prompts, custom.KVCapacityOverride = rundoc.PromptsUnique, 36864
	prefillOnly := rundoc.DefaultPlan()
	prefillOnly.Contexts = nil
	for _, p := range []rundoc.Plan{want, custom, prefillOnly} {
		f.set(p)
		got, err := f.plan()
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("restored %+v\nreads %+v, %v", p, got, err)
		}
	}
	if c := f.entries[rundoc.FieldContexts].Text; c != "none" {
		t.Errorf("a prefill-only plan restores Contexts %q, want none", c)
	}
	f.set(rundoc.DefaultPlan())
	for field, e := range f.entries {
		if e.Text != "" {
			t.Errorf("the default plan restores %s as %q, want it empty (the default)", FieldLabel(field), e.Text)
		}
	}
}
