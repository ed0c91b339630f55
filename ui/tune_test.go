//go:build !race

package ui_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/target"
)

// TestTuneJourney: on the demo, pick two dimensions, see the variant count
// and the estimate, start, see the progress and then the verdict, table
// and chart, apply the winner to the Launch form; the variants are in
// History under the sweep's tag.
func TestTuneJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("a journey through the app with demo runs in real time (5 s or more): skipped with -short (make test runs it)")
	}
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		// The user's flags run 4 sequences at once: 8 streams queue.
		cfg := u.Launch.Form.Config()
		cfg.Set("--max-num-seqs", "4")
		u.Launch.Form.SetConfig(cfg)
		u.SelectTab(ui.TabTune)
		if err := u.Tune.AddDimension("--kv-cache-dtype", "auto,fp8"); err != nil {
			t.Fatal(err)
		}
		if err := u.Tune.AddDimension("--max-num-seqs", "4,64"); err != nil {
			t.Fatal(err)
		}
		u.Tune.SetMode(tune.Grid)
		u.Tune.SetWorkload("1K,4K", "8", "10s")
		u.Tune.SetObjective("total-tok-s@1Kx8", "")
	})
	var summary string
	fyne.DoAndWait(func() { summary = u.Tune.Summary() })
	// The grid's four combinations, the base among them (auto is vLLM's
	// default and 4 the form's value).
	if !strings.HasPrefix(summary, "4 variants, about ") {
		t.Fatalf("summary before start %q", summary)
	}
	var done <-chan struct{}
	fyne.DoAndWait(func() { u.Tune.Start(); done = u.Tune.Done() })
	sawProgress := false
	deadline := time.After(2 * time.Minute)
wait:
	for {
		select {
		case <-done:
			break wait
		case <-time.After(50 * time.Millisecond):
			fyne.DoAndWait(func() {
				if s := u.Tune.Status(); strings.HasPrefix(s, "Variant ") && strings.Contains(s, " of 4") {
					sawProgress = true
				}
			})
		case <-deadline:
			t.Fatal("the sweep did not finish in 2 minutes")
		}
	}
	if !sawProgress {
		t.Error("no progress line (variant k of n) was shown")
	}
	var verdict, status string
	var rows [][]string
	var canApply bool
	var doc *tune.Doc
	fyne.DoAndWait(func() {
		verdict, status, rows, canApply, doc = u.Tune.Verdict(), u.Tune.Status(), u.Tune.Rows(), u.Tune.CanApply(), u.Tune.Doc()
	})
	if !strings.HasPrefix(verdict, "Verdict: ") || doc == nil || len(rows) != 5 || !strings.Contains(status, "4 of 4 variants measured") {
		t.Fatalf("verdict %q, status %q, %d rows", verdict, status, len(rows))
	}
	t.Logf("%s", verdict)
	// max-num-seqs 4 queues 8 streams; the winner is one of the variants
	// with a score, and Apply puts its flags into the Launch form.
	for _, v := range doc.Variants {
		if strings.Contains(v.Label, "--max-num-seqs 4") && v.Score != nil {
			t.Errorf("%s queued yet scored", v.Label)
		}
	}
	// The base queues, so a variant with 64 sequences wins.
	changes, ok := doc.BestChanges()
	if !ok || !canApply || !strings.Contains(tune.FlagsLabel(changes), "--max-num-seqs 64") {
		t.Fatalf("winner's changes %v (apply enabled %v), verdict %q", changes, canApply, verdict)
	}
	fyne.DoAndWait(u.Tune.Apply)
	fyne.DoAndWait(func() {
		cfg := u.Launch.Form.Config()
		for _, c := range changes {
			if got, _ := cfg.Get(c.Name); got != c.Value {
				t.Errorf("Launch form %s = %q after Apply, want %q", c.Name, got, c.Value)
			}
		}
	})
	runs, err := u.History.Source().List(context.Background())
	tagged := 0
	for _, e := range runs {
		for _, tag := range e.Run.Tags {
			if tag == tune.Tag(doc.SweepID) {
				tagged++
			}
		}
	}
	if err != nil || tagged != 4 {
		t.Errorf("%d runs tagged %s in History (%v)", tagged, tune.Tag(doc.SweepID), err)
	}
	// Issue 24 item 4: a new sweep takes the last one's chart and table
	// off the screen as it starts.
	var again <-chan struct{}
	fyne.DoAndWait(func() {
		u.Tune.Start()
		again = u.Tune.Done()
		if rows, chart := u.Tune.Rows(), u.Tune.Chart(); len(rows) != 0 || len(chart) != 0 || u.Tune.Doc() != nil {
			t.Errorf("a new sweep started with the last one's %d table rows and %d chart rows on screen", len(rows), len(chart))
		}
		u.Tune.Stop()
	})
	select {
	case <-again:
	case <-time.After(time.Minute):
		t.Fatal("the second sweep did not stop")
	}
}

// TestTuneUnavailableForEndpoint: with an existing endpoint as the target,
// the view says why Tune cannot run and Start does nothing.
func TestTuneUnavailableForEndpoint(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Endpoint, URL: "http://127.0.0.1:1"})
		u.Tune.AddDimension("--kv-cache-dtype", "auto,fp8")
		u.Tune.Refresh()
		u.Tune.Start()
		if u.Tune.Running() || !strings.Contains(u.Tune.Status(), "unavailable for an existing endpoint") {
			t.Errorf("running %v, status %q", u.Tune.Running(), u.Tune.Status())
		}
	})
}

// Closing the window during a sweep asks first; Stop then keeps the
// finished variants and ends the sweep.
func TestCloseDuringSweepAsks(t *testing.T) {
	u, w := newUI(t)
	var done <-chan struct{}
	fyne.DoAndWait(func() {
		u.Tune.AddDimension("--kv-cache-dtype", "auto,fp8")
		u.Tune.SetWorkload("1K", "4", "30s")
		u.Tune.SetObjective("total-tok-s", "")
		u.Tune.Start()
		done = u.Tune.Done()
		u.Close()
	})
	var asked bool
	fyne.DoAndWait(func() { asked = w.Canvas().Overlays().Top() != nil })
	if !asked {
		t.Error("the window closed during a sweep without asking")
	}
	fyne.DoAndWait(u.Tune.Stop)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the sweep did not stop")
	}
	fyne.DoAndWait(func() {
		if u.Tune.Running() || !strings.HasPrefix(u.Tune.Status(), "Stopped") && !strings.Contains(u.Tune.Status(), "done") {
			t.Errorf("after Stop: running %v, status %q", u.Tune.Running(), u.Tune.Status())
		}
	})
}

// After a crash, the Tune view offers to resume the sweep started last
// (its spec kept beside the history) and Resume measures what is missing.
func TestTuneResumesAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("a journey through the app with demo runs in real time (5 s or more): skipped with -short (make test runs it)")
	}
	db := filepath.Join(t.TempDir(), "history.db")
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 10, Window: rundoc.WindowFixed, MaxOutput: 256}
	obj, _ := tune.ParseObjective("total-tok-s", plan)
	d, _ := tune.ParseDimension("kv-cache-dtype=auto,fp8")
	spec := tune.Spec{ID: tune.NewID(), Mode: tune.Grid, Plan: plan, Objective: obj, Target: tune.TargetDemo, SimSpeed: 20,
		Dimensions: []tune.Dimension{d}}
	if err := tune.SaveSpec(tune.SpecDir(db), spec); err != nil {
		t.Fatal(err)
	}
	u, _ := newUIWithDB(t, db)
	var status string
	var done <-chan struct{}
	fyne.DoAndWait(func() {
		status = u.Tune.Status()
		u.Tune.Resume()
		done = u.Tune.Done()
	})
	if !strings.Contains(status, "Sweep "+spec.ID) || !strings.Contains(status, "Resume") {
		t.Fatalf("status at start %q", status)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the resumed sweep did not finish")
	}
	var doc *tune.Doc
	fyne.DoAndWait(func() { doc = u.Tune.Doc() })
	if doc == nil || doc.SweepID != spec.ID || len(doc.Variants) != 2 || doc.Variants[1].Status != tune.Measured {
		t.Fatalf("resumed sweep %+v", doc)
	}
	// Issue 24 item 6: reopened after the sweep finished (the window may
	// close during its last variant, once that variant is saved), the view
	// shows the sweep's form and verdict, not an empty form.
	again, _ := newUIWithDB(t, db)
	fyne.DoAndWait(func() {
		if v := again.Tune.Verdict(); v == "" || again.Tune.Doc() == nil || again.Tune.Doc().SweepID != spec.ID {
			t.Errorf("reopened on sweep %s: verdict %q, want the sweep's", spec.ID, v)
		}
		if c, n, w := again.Tune.Workload(); c != "1K" || n != "4" || w != "10s" {
			t.Errorf("reopened form workload %q %q %q, want the sweep's 1K 4 10s", c, n, w)
		}
		if s := again.Tune.Summary(); !strings.HasPrefix(s, "2 variants") {
			t.Errorf("reopened form summary %q, want the sweep's 2 variants", s)
		}
	})
	// Issue 41 minor 2: one of its runs deleted in History, the finished
	// sweep reopens with its verdict, judged from the run that remains, and
	// says so; Resume can measure the deleted one again. It used to read
	// "stopped before its 2 variants were measured", its verdict gone.
	var variant *rundoc.Run
	fyne.DoAndWait(func() {
		for _, r := range again.History.Shown() {
			if strings.HasSuffix(r.Name, tune.BaseLabel) {
				variant = r
			}
		}
	})
	if variant == nil {
		t.Fatal("the sweep's base run is not in History")
	}
	if _, msg := history.DeletePrompt([]*rundoc.Run{variant}); !strings.Contains(msg, "Tune sweep "+spec.ID) {
		t.Errorf("the delete dialog does not warn that the run belongs to sweep %s: %q", spec.ID, msg)
	}
	deleted := make(chan struct{})
	fyne.DoAndWait(func() {
		again.History.OnEdited = func() { close(deleted) }
		again.History.Delete([]*rundoc.Run{variant})
	})
	select {
	case <-deleted:
	case <-time.After(10 * time.Second):
		t.Fatal("the delete did not finish")
	}
	// The Tune view on screen says so at once, not only after a restart.
	fyne.DoAndWait(func() {
		if st := again.Tune.Status(); !strings.Contains(st, "1 of its 2 variants was deleted") || !again.Tune.CanResume() {
			t.Errorf("after the delete the Tune view on screen says %q (Resume %v)", st, again.Tune.CanResume())
		}
	})
	third, _ := newUIWithDB(t, db)
	fyne.DoAndWait(func() {
		st := third.Tune.Status()
		if third.Tune.Verdict() == "" || third.Tune.Doc() == nil || !strings.Contains(st, "1 of its 2 variants was deleted") {
			t.Errorf("reopened after a delete: verdict %q, status %q, want the verdict judged without the deleted run", third.Tune.Verdict(), st)
		}
		if !third.Tune.CanResume() {
			t.Error("Resume is not offered for the deleted variant")
		}
	})
}
