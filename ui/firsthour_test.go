//go:build !race

package ui_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/history"
)

// runDemo runs a small plan on the demo and returns the finished run.
func runDemo(t *testing.T, u *ui.UI) *rundoc.Run {
	t.Helper()
	var finished *rundoc.Run
	var runErr error
	ended := make(chan struct{})
	fyne.DoAndWait(func() {
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *rundoc.Run, err error) {
			prev(r, err)
			u.Run.OnFinished = prev
			finished, runErr = r, err
			close(ended)
		}
		u.Run.Start()
	})
	select {
	case <-ended:
	case <-time.After(90 * time.Second):
		t.Fatal("the demo run did not finish in 90 s")
	}
	if runErr != nil {
		t.Fatalf("demo run: %v", runErr)
	}
	return finished
}

// Item 2 of issue 16: the demo explains itself on the Launch page, offers
// a speed (the estimate follows it, figures stay in card time) and takes
// the launch form's vLLM flags, which change the simulated server and are
// recorded with the run.
func TestDemoTakesSpeedAndFlags(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		if !u.Launch.DemoShown() {
			t.Error("the Launch page shows no demo panel with the demo chosen")
		}
		if u.Launch.HardwareWarning() == "" {
			t.Error("the no-GPU warning is gone (it should only hide while the demo is chosen)")
		}
		if m := u.Launch.Form.GeneralMessage(); m != "" {
			t.Errorf("the demo's flag form says %q; the demo needs no model, image or GPUs", m)
		}
		// The test services ask for speed 20 (as RIGBENCH_SIM_SPEED would).
		if s := u.Launch.DemoSpeed(); s != 20 {
			t.Errorf("demo speed = %g, want the services' 20", s)
		}
		u.Run.SetPlanText("0, 1K", "1, 2", "1K", "30", "64")
		slow := u.Run.Estimate()
		u.Launch.PickDemoSpeed(100)
		if f := u.Run.Facts(); f.Speed != 100 {
			t.Errorf("after picking 100× the run view's speed is %g", f.Speed)
		}
		if fast := u.Run.Estimate(); fast == slow {
			t.Errorf("the estimate %q did not change with the speed", fast)
		}
		if !u.Launch.Form.SetFlagText("--max-model-len", "4096") {
			t.Fatal("--max-model-len has no text field")
		}
		if f := u.Run.Facts(); f.MaxModelLen != 4096 {
			t.Errorf("demo max model length = %d after --max-model-len 4096", f.MaxModelLen)
		}
		cmd, problem := u.Launch.DemoText()
		if !strings.Contains(cmd, "--max-model-len 4096") || !strings.Contains(cmd, "--speed 100") || problem != "" {
			t.Errorf("demo command %q (problem %q), want the flag and the speed", cmd, problem)
		}
		u.Launch.Form.SetFlagText("--max-num-seqs", "2")
	})
	r := runDemo(t, u)
	if r.Launch == nil || !slices.Contains(r.Launch.Args, "--max-num-seqs") {
		t.Fatalf("the demo run did not record its flags: %+v", r.Launch)
	}
	if r.Server.MaxModelLen != 4096 {
		t.Errorf("the simulated server reported max_model_len %d, want the form's 4096", r.Server.MaxModelLen)
	}
	// Window lengths are the plan's 30 s in card time, whatever the speed.
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode && c.Status.Ran() && c.MeasuredS < 20 {
			t.Errorf("cell %d×%d window %.1f s, want about the plan's 30 s of card time", c.Context, c.Concurrency, c.MeasuredS)
		}
	}
	// An argument vLLM would refuse is said at once, and Start refuses it.
	fyne.DoAndWait(func() {
		u.Launch.Form.SetConfig(withExtra(u.Launch.Form.Config(), "--bogus-flag", "3"))
		if _, problem := u.Launch.DemoText(); !strings.Contains(problem, "--bogus-flag") {
			t.Errorf("demo problem %q, want it to name --bogus-flag", problem)
		}
	})
}

// withExtra returns c with args appended to its extra arguments.
func withExtra(c vllm.LaunchConfig, args ...string) vllm.LaunchConfig {
	c.Extra = append(append([]string(nil), c.Extra...), args...)
	return c
}

// Issue 16 item 1: Compare has its own Export button, which opens the
// export dialog for the compared runs.
func TestCompareExportOpensDialog(t *testing.T) {
	u, w := newUI(t)
	ref := referenceRun(t)
	imported, err := history.ImportFile(context.Background(), u.History.Source(), ref)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	second := *imported
	second.UUID, second.Name = uuid.NewString(), "second"
	fyne.DoAndWait(func() {
		u.Compare.SetRuns([]*rundoc.Run{imported, &second}, nil)
		u.SelectTab(ui.TabCompare)
		if w.Canvas().Overlays().Top() != nil {
			t.Fatal("a dialog is open before Export")
		}
		u.Compare.Export()
		if w.Canvas().Overlays().Top() == nil {
			t.Error("Export opened no dialog")
		}
	})
}
