//go:build !race

package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/predicted"
	"github.com/rigbench/rigbench/ui/target"
)

// Issue "Before launching", in the app: on the demo, the Launch view's
// "Will it fit?" and the Run view's plan preview show the figures
// predict.Request.Do gives for the demo's launch and the Run view's plan,
// the same in both views.
func TestLaunchAndRunShowTheSamePrediction(t *testing.T) {
	u, _ := newUI(t)
	var kind target.Kind
	fyne.DoAndWait(func() { kind = u.Target.Choice().Kind })
	if kind != target.Demo {
		t.Fatalf("default target without GPU and Docker = %q, want demo", kind)
	}
	var headline, line string
	deadline := time.Now().Add(time.Minute)
	for {
		var pending bool
		fyne.DoAndWait(func() {
			headline, line = u.Launch.FitHeadline(), u.Run.Predicted()
			pending = u.Launch.FitPending() || u.Run.PredictedPending()
		})
		if !pending && headline != "" && line != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no prediction in a minute: Launch says %q, Run says %q", headline, line)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var req predict.Request
	fyne.DoAndWait(func() {
		c := u.Launch.Form.Config()
		plan, err := u.Run.Plan()
		if err != nil {
			t.Fatal(err)
		}
		req = predict.Request{Demo: true, Profile: sim.DefaultProfile(), Args: launchview.DemoArgs(c), Plan: plan,
			Lookup: predict.Lookup{Offline: true}}
	})
	pr, err := req.Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := predicted.Headline(pr); headline != want {
		t.Errorf("Launch says %q, predict %q", headline, want)
	}
	if want := predicted.Cells(pr); line != want {
		t.Errorf("Run says %q, predict %q", line, want)
	}
	if !strings.Contains(line, pr.Basis()) {
		t.Errorf("Run's line %q lacks the basis %q", line, pr.Basis())
	}
}
