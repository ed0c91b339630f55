//go:build !race

package ui_test

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/qualityview"
)

// TestTuneKeepsQuality is issue 37's "done when" in the app: on the demo,
// a sweep of --kv-cache-dtype auto, fp8 and int4_per_token_head with the
// GSM8K quality check on 200 items passes over int4 (faster by capacity,
// but the profile makes it lossy) and recommends fp8, which keeps
// quality; its table has the quality column; each variant's flips and
// exact McNemar p are the simulator's truth, item by item.
func TestTuneKeepsQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep of three demo launches with a 200-item probe each (seconds): skipped with -short (make test runs it)")
	}
	u, w := newUI(t)
	fyne.DoAndWait(func() {
		cfg := u.Launch.Form.Config()
		cfg.Set("--gpu-memory-utilization", "0.64")
		cfg.Set("--max-model-len", "16384")
		u.Launch.Form.SetConfig(cfg)
		u.SelectTab(ui.TabTune)
		if err := u.Tune.AddDimension("--kv-cache-dtype", "auto,fp8,int4_per_token_head"); err != nil {
			t.Fatal(err)
		}
		u.Tune.SetMode(tune.Grid)
		u.Tune.SetWorkload("4K", "4,8,16", "3s")
		u.Tune.SetObjective("most-streams@4K:30s", "")
		u.Tune.SetQuality(qualityview.ProbeGSM8K, "200")
	})
	var done <-chan struct{}
	fyne.DoAndWait(func() { u.Tune.Start(); done = u.Tune.Done() })
	select {
	case <-done:
	case <-time.After(4 * time.Minute):
		t.Fatal("the sweep did not finish in 4 minutes")
	}
	var verdict string
	var rows [][]string
	var doc *tune.Doc
	fyne.DoAndWait(func() { verdict, rows, doc = u.Tune.Verdict(), u.Tune.Rows(), u.Tune.Doc() })
	t.Logf("%s", verdict)
	if doc == nil || len(doc.Variants) != 3 {
		t.Fatalf("sweep document %+v, verdict %q", doc, verdict)
	}
	if len(rows) == 0 || !strings.Contains(strings.Join(rows[0], "|"), "quality") {
		t.Errorf("the table's header %q has no quality column", rows)
	}
	want := []tune.QualityVerdict{tune.QualityBaseline, tune.QualityKept, tune.QualityLost}
	for i, v := range doc.Variants {
		if v.Quality == nil || v.Quality.Verdict != want[i] {
			t.Fatalf("%s: quality %+v, want %s", v.Label, v.Quality, want[i])
		}
	}
	changes, ok := doc.BestChanges()
	if !ok || tune.FlagsLabel(changes) != "--kv-cache-dtype fp8" {
		t.Errorf("the winner's changes %v (%v), want fp8, the fastest that keeps quality", changes, ok)
	}
	if !strings.Contains(verdict, "int4_per_token_head") || !strings.Contains(verdict, "not recommended") {
		t.Errorf("the verdict %q does not say why int4 was passed over", verdict)
	}
	// The chart's longest bar says why it is not the winner.
	var chart []string
	fyne.DoAndWait(func() { chart = u.Tune.Chart() })
	if all := strings.Join(chart, "\n"); !strings.Contains(all, "quality "+doc.Variants[2].Quality.Text) {
		t.Errorf("the chart %q does not say int4 loses quality", all)
	}
	truthWith := func(dtype string) []bool {
		fyne.DoAndWait(func() {
			cfg := u.Launch.Form.Config()
			cfg.Set("--kv-cache-dtype", dtype)
			u.Launch.Form.SetConfig(cfg)
		})
		return demoTruth(t, u, 200)
	}
	base := truthWith("auto")
	for i, dtype := range []string{"fp8", "int4_per_token_head"} {
		cand := truthWith(dtype)
		b, c := 0, 0
		for k := range base {
			if base[k] && !cand[k] {
				b++
			} else if !base[k] && cand[k] {
				c++
			}
		}
		got := doc.Variants[i+1].Quality.Comparison
		if got == nil || got.RightOnlyBaseline != b || got.RightOnlyCandidate != c || got.McNemarP != quality.McNemarExact(b, c) {
			t.Errorf("%s: comparison %+v, want the truth's flips %d/%d and p %g", dtype, got, b, c, quality.McNemarExact(b, c))
		}
	}
	saveShot(t, w, "tune-quality")
}
