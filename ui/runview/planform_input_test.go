package runview

import (
	"errors"
	"reflect"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestPlanFormReadsAsTheCLI: the Run view's fields go through
// rundoc.PlanInput, the CLI's reader, so the same text gives the same
// plan ("30" seconds here, --duration 30s there) and the same limits (a
// level above rundoc.MaxConcurrency, which this form did not check, and a
// window above an hour, which it took).
func TestPlanFormReadsAsTheCLI(t *testing.T) {
	test.NewTempApp(t)
	f := newPlanForm(func() {})
	f.contexts.SetText("0,16K")
	f.concurrency.SetText("1,8")
	f.prefill.SetText("8K")
	f.seconds.SetText("30")
	f.maxOutput.SetText("1024")
	got, err := f.plan()
	if err != nil {
		t.Fatal(err)
	}
	want, err := rundoc.PlanInput{Contexts: "0,16K", Concurrency: "1,8", Prefill: "8K", Window: "30s", MaxOutput: "1024"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("form %+v\nCLI  %+v", got, want)
	}
	for _, tc := range []struct {
		set   func()
		field rundoc.Field
	}{
		{func() { f.concurrency.SetText("1,4097") }, rundoc.FieldConcurrency},
		{func() { f.concurrency.SetText("1"); f.seconds.SetText("7200") }, rundoc.FieldWindow},
	} {
		tc.set()
		_, err := f.plan()
		in := rundoc.PlanInput{Contexts: f.contexts.Text, Concurrency: f.concurrency.Text, Prefill: f.prefill.Text,
			Window: f.seconds.Text, MaxOutput: f.maxOutput.Text}
		_, cliErr := in.Plan()
		var fe *rundoc.FieldError
		if err == nil || !errors.As(cliErr, &fe) || fe.Field != tc.field || err.Error() != fe.In(fieldLabel(tc.field)) {
			t.Errorf("form error %v, CLI reader's %v: want the same %s error worded with the form's label", err, cliErr, tc.field)
		}
	}
	// An empty Prefill box means no prefill (the CLI's flag left out
	// means its defaults).
	f.seconds.SetText("auto")
	f.prefill.SetText("")
	if p, err := f.plan(); err != nil || len(p.PrefillContexts) != 0 {
		t.Errorf("empty prefill: %+v, %v", p.PrefillContexts, err)
	}
}
