//go:build !race

package ui_test

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui"
)

// TestTuneSpeculativeVerdict is issue 39's demo sweep in the app: vary
// speculative decoding (off and mtp:1–3) on the demo; the table labels the
// variants in the short form and the verdict names each drafter's
// acceptance and steps/s, as the CLI's does.
func TestTuneSpeculativeVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo sweep through the app in real time: skipped with -short (make test runs it)")
	}
	u, w := newUI(t)
	fyne.DoAndWait(func() {
		u.SelectTab(ui.TabTune)
		if err := u.Tune.AddDimension(vllm.SpeculativeFlag, strings.Join(vllm.Suggestions(vllm.SpeculativeFlag), ",")); err != nil {
			t.Fatal(err)
		}
		u.Tune.SetWorkload("0", "4", "10s")
		u.Tune.SetObjective("total-tok-s@0x4", "")
	})
	var done <-chan struct{}
	var status string
	fyne.DoAndWait(func() { u.Tune.Start(); done, status = u.Tune.Done(), u.Tune.Status() })
	if !strings.Contains(status, "starting 4 variants") {
		t.Fatalf("status after Start: %q, want the sweep of 4 variants starting", status)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the sweep did not finish in 2 minutes")
	}
	var verdict string
	var rows [][]string
	fyne.DoAndWait(func() { verdict, rows = u.Tune.Verdict(), u.Tune.Rows() })
	for _, want := range []string{"accepted", "tokens/step", "steps/s", "speculative mtp:2"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("the verdict does not say %q: %s", want, verdict)
		}
	}
	labels := ""
	for _, r := range rows {
		labels += strings.Join(r, " ") + "\n"
	}
	if !strings.Contains(labels, "speculative mtp:3") || strings.Contains(labels, "num_speculative_tokens") {
		t.Errorf("the table's variants are not in the short form:\n%s", labels)
	}
	t.Log(verdict)
	saveShot(t, w, "tune-speculative")
}
