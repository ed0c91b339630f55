//go:build !race

// A journey through the app (see app_test.go for why it runs without
// -race): the Run view's Quality check against the demo.

package ui_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/runview"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/wording"
)

// setKVCacheDtype sets the Launch page's --kv-cache-dtype, the demo's flags.
func setKVCacheDtype(u *ui.UI, dtype string) {
	c := u.Launch.Form.Config()
	c.Set("--kv-cache-dtype", dtype)
	u.Launch.Form.SetConfig(c)
}

// checkQuality presses Check quality and waits for the check to end.
func checkQuality(t *testing.T, u *ui.UI) {
	t.Helper()
	fyne.DoAndWait(u.Run.CheckQuality)
	select {
	case <-u.Run.QualityDone():
	case <-time.After(60 * time.Second):
		t.Fatal("the quality check did not end in 60 s")
	}
}

// demoTruth is what the demo's simulator with the Launch page's flags
// answers to the first n of gsm8k's demo items, evenly spread, by its own
// account (sim.Server.AnswerTruth), not by asking it.
func demoTruth(t *testing.T, u *ui.UI, n int) []bool {
	t.Helper()
	var args []string
	fyne.DoAndWait(func() { args = session.DemoArgs(u.Launch.Form.Config()) })
	cfg, err := sim.ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ds, err := quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(quality.DemoItems))
	if err != nil {
		t.Fatal(err)
	}
	var right []bool
	for _, it := range ds.Subset(n) {
		ok, _, readable, _ := s.AnswerTruth(quality.ItemPrompt(ds.Scorer, it), quality.DefaultTaskMaxTokens)
		if !readable {
			t.Fatalf("the simulator cannot read item %s", it.ID)
		}
		right = append(right, ok)
	}
	return right
}

// The Quality check on the demo: GSM8K on 200 items with a lossless KV
// cache, then with int4_per_token_head against it. The screen shows the
// loss: the flips and the exact McNemar p of the simulator's own truth,
// the Wilson interval of its right answers, and, line for line, what
// `rigbench-cli quality --baseline` prints for the same pair of results
// (quality.Report, read back from the exported files the CLI reads).
func TestQualityCheckShowsTheLossOfALossyFlag(t *testing.T) {
	u, w := newUI(t)
	if k := u.Target.Choice().Kind; k != target.Demo {
		t.Fatalf("default target = %q, want the demo", k)
	}
	const n = 200
	fyne.DoAndWait(func() {
		u.SelectTab(ui.TabRun)
		u.Run.OpenQuality(true)
		u.Run.SetQualityProbe(runview.ProbeGSM8K, fmt.Sprint(n))
		setKVCacheDtype(u, "auto")
	})
	baseTruth := demoTruth(t, u, n)
	checkQuality(t, u)
	var base *quality.Result
	var status string
	var options []string
	fyne.DoAndWait(func() { base, status, options = u.Run.QualityResult(), u.Run.QualityStatus(), u.Run.QualityBaselines() })
	if base == nil || len(base.Items) != n {
		t.Fatalf("no result of %d items after the first check; status %q", n, status)
	}
	if len(options) != 2 || options[0] != runview.NoBaseline || !strings.HasPrefix(options[1], "gsm8k:200 at ") {
		t.Fatalf("baselines offered after one check = %q, want it offered", options)
	}

	fyne.DoAndWait(func() {
		setKVCacheDtype(u, "int4_per_token_head")
		u.Run.SetQualityBaseline(options[1])
	})
	candTruth := demoTruth(t, u, n)
	checkQuality(t, u)
	var cand *quality.Result
	var shown []string
	fyne.DoAndWait(func() { cand, shown, status = u.Run.QualityResult(), u.Run.QualityText(), u.Run.QualityStatus() })
	if cand == nil || cand == base {
		t.Fatalf("no second result; status %q", status)
	}

	// The simulator's truth: its right answers and the flips.
	right, b, c := 0, 0, 0
	for i := range candTruth {
		if candTruth[i] {
			right++
		}
		if baseTruth[i] && !candTruth[i] {
			b++
		}
		if !baseTruth[i] && candTruth[i] {
			c++
		}
	}
	if b <= c {
		t.Fatalf("the profile's int4 cache loses nothing here (%d lost, %d gained): the test proves nothing", b, c)
	}
	ci := quality.Wilson(right, n)
	want := []string{
		fmt.Sprintf("(%d/%d), 95%% CI %.1f–%.1f%% (Wilson)", right, n, 100*ci.Lo, 100*ci.Hi),
		fmt.Sprintf("%d right only in the baseline, %d only in this run; exact McNemar %s", b, c, quality.PText(quality.McNemarExact(b, c))),
		"Verdict: accuracy lost ",
	}
	all := strings.Join(shown, "\n")
	for _, s := range want {
		if !strings.Contains(all, s) {
			t.Errorf("the screen does not say %q:\n%s", s, all)
		}
	}

	// Exported (Export's writer, safefile) and read back as the CLI reads
	// --baseline, the pair prints what the screen shows.
	dir := t.TempDir()
	var cliLines []string
	for _, f := range []struct {
		name string
		r    *quality.Result
	}{{"base.json", base}, {"cand.json", cand}} {
		if err := safefile.Write(filepath.Join(dir, f.name), f.r.Write); err != nil {
			t.Fatal(err)
		}
	}
	rb, err := quality.ReadFile(filepath.Join(dir, "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := quality.ReadFile(filepath.Join(dir, "cand.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := quality.NewReport(rc, rb)
	if err != nil {
		t.Fatal(err)
	}
	cliLines = rep.Lines()
	if len(shown) != len(cliLines) {
		t.Fatalf("the screen shows %d lines, the CLI prints %d:\nscreen:\n%s\nCLI:\n%s", len(shown), len(cliLines), all, strings.Join(cliLines, "\n"))
	}
	for i, l := range cliLines {
		if i > 0 && !strings.HasPrefix(l, "  ") {
			l = wording.Sentence(l) // the app's sentences; the category rows are table cells
		}
		if shown[i] != l {
			t.Errorf("line %d: the screen shows %q, the CLI prints %q", i+1, shown[i], l)
		}
	}
	t.Log(all)
	// Open, with a result and its table, the section widens no window.
	for _, s := range []fyne.Size{fyne.NewSize(1280, 800), fyne.NewSize(900, 600)} {
		fits(t, u, w, s, "with the Quality check open and a comparison shown")
	}

	saveShot(t, w, "run-quality")
}

// A baseline of another probe is refused in one sentence before anything
// is asked, and a check of a launch whose server is not started says
// where to start it.
func TestQualityCheckRefusesInOneSentence(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		u.Run.OpenQuality(true)
		u.Run.SetQualityProbe(runview.ProbeAgreement, "")
	})
	checkQuality(t, u)
	var options []string
	fyne.DoAndWait(func() {
		options = u.Run.QualityBaselines()
		u.Run.SetQualityProbe(runview.ProbeGSM8K, "20")
		u.Run.SetQualityBaseline(options[len(options)-1])
	})
	checkQuality(t, u)
	var status string
	fyne.DoAndWait(func() { status = u.Run.QualityStatus() })
	if !strings.HasPrefix(status, "The baseline does not pair with this check: ") || strings.Count(status, ". ") > 0 || !strings.HasSuffix(status, ".") {
		t.Errorf("an agreement baseline for gsm8k:20: %q, want one sentence refusing it", status)
	}

	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		u.Run.SetQualityBaseline(runview.NoBaseline)
	})
	checkQuality(t, u)
	fyne.DoAndWait(func() { status = u.Run.QualityStatus() })
	if status != wording.Sentence(session.ErrNoServer.Error()) {
		t.Errorf("a launch not started: %q, want %q", status, wording.Sentence(session.ErrNoServer.Error()))
	}
}
