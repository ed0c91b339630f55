//go:build !race

package ui_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// Results' Resume continues a stopped run in the history (issue 29): the
// cell that failed is measured again into the same run against the chosen
// target (the demo), the kept cell stays byte for byte, and the run ends
// complete.
func TestResumeFromResults(t *testing.T) {
	u, _ := newUI(t)
	first := runWith(t, u, func() {
		u.Run.SetPlanText("0", "1, 2", "512", "10", "64")
		u.Run.Start()
	})

	// The run as a dead server leaves it: its last cell Failed.
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv(store.EnvDB))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stopped, err := db.Get(ctx, first.UUID)
	if err != nil || len(stopped.Cells) != 3 {
		t.Fatalf("the run in the history: %v, %d cells", err, len(stopped.Cells))
	}
	stopped.Status, stopped.Error = rundoc.RunFailed, "the server stopped answering during cell decode 0×2"
	kept := map[string]string{}
	for i := range stopped.Cells {
		c := &stopped.Cells[i]
		if c.Phase == rundoc.PhaseDecode && c.Concurrency == 2 {
			c.Status, c.Reason = rundoc.StatusFailed, "the server closed every connection 3.1 s into the window and refused new ones"
			continue
		}
		b, _ := json.Marshal(c)
		kept[c.Label()] = string(b)
	}
	if err := db.SaveRun(ctx, stopped); err != nil {
		t.Fatal(err)
	}

	var shown bool
	fyne.DoAndWait(func() {
		u.Results.SetRun(stopped, nil)
		shown = u.Results.ResumeButton().Visible()
	})
	if !shown {
		t.Fatal("Results shows no Resume for a run with a Failed cell")
	}
	resumed := runWith(t, u, func() { test.Tap(u.Results.ResumeButton()) })
	if resumed.UUID != first.UUID {
		t.Fatalf("the resume made run %s, want %s continued", resumed.UUID, first.UUID)
	}
	saved, err := db.Get(ctx, first.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Status != rundoc.RunComplete || len(saved.Cells) != 3 {
		t.Fatalf("after Resume the run is %s with %d cells, want complete with 3", saved.Status, len(saved.Cells))
	}
	for _, c := range saved.Cells {
		b, _ := json.Marshal(c)
		switch was, ok := kept[c.Label()]; {
		case ok && string(b) != was:
			t.Errorf("the kept cell changed:\n%s\n%s", was, b)
		case c.Status == rundoc.StatusFailed || c.Status == rundoc.StatusCancelled:
			t.Errorf("%s: %s %s", c.Label(), c.Status, c.Reason)
		}
	}
	var visible bool
	fyne.DoAndWait(func() { visible = u.Results.ResumeButton().Visible() })
	if visible {
		t.Error("Resume still shows for the completed run")
	}
}
