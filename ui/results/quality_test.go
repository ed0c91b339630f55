//go:build !race

// Left out of the race detector's pass, as results_test.go is: SetRun
// draws the charts off the UI goroutine.

package results_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/ui/results"
)

// TestQualityTab (issue 37): a run with a quality check paired against a
// baseline shows, in its Quality tab, the rows every report writes
// (report.QualityRows): the accuracy, the loss in points with its flips
// and the exact McNemar p that engine/quality computes. A run without a
// check says so instead of an empty tab.
func TestQualityTab(t *testing.T) {
	test.NewTempApp(t)
	ds := &quality.DatasetRef{Name: "demo-arith", SHA256: "cad9a93964ce0000", Items: 100}
	base := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	cand := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	for i := range 100 {
		id := fmt.Sprintf("gsm8k/%d", i)
		base.Items = append(base.Items, quality.Item{ID: id, Want: "1", Correct: i < 80, CompletionTokens: 100})
		cand.Items = append(cand.Items, quality.Item{ID: id, Want: "1", Correct: i >= 12 && i < 80 || i == 80, CompletionTokens: 110})
	}
	q, err := (&quality.Check{Probe: "gsm8k:100", Result: cand, Baseline: quality.Pair(base, cand, "", "the base launch")}).Doc()
	if err != nil {
		t.Fatal(err)
	}
	r := run()
	r.Quality = q
	v := results.New()
	done := make(chan struct{})
	v.SetRun(r, func() { close(done) })
	<-done
	got := v.QualityRows()
	if want := report.QualityRows(r); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("the tab shows %q, want the reports' rows %q", got, want)
	}
	var text strings.Builder
	for _, row := range got {
		text.WriteString(row[0] + ": " + row[1] + "\n")
	}
	p := quality.PText(quality.McNemarExact(12, 1))
	for _, want := range []string{"accuracy 69.0% (69/100)", "−11.0 points", "12 right only in the baseline, 1 only in this run", p} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the Quality tab lacks %q:\n%s", want, text.String())
		}
	}

	plain := run()
	v.SetRun(plain, nil)
	if rows := v.QualityRows(); rows != nil {
		t.Errorf("a run without a check shows rows %q", rows)
	}
}
