//go:build !race

// Left out of the race detector's pass, as flags_test.go is: the chart
// gallery draws off the UI goroutine.

package compare_test

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/compare"
)

// checked gives r a GSM8K check of 100 items, right where right says.
func checked(t *testing.T, r *rundoc.Run, right func(i int) bool) {
	t.Helper()
	ds := &quality.DatasetRef{Name: "demo-arith", SHA256: "cad9a93964ce0000", Items: 100}
	res := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	for i := range 100 {
		res.Items = append(res.Items, quality.Item{ID: fmt.Sprintf("gsm8k/%d", i), Want: "1", Correct: right(i), CompletionTokens: 100})
	}
	q, err := (&quality.Check{Probe: "gsm8k:100", Result: res}).Doc()
	if err != nil {
		t.Fatal(err)
	}
	r.Quality = q
}

// TestComparePairsQuality (issue 37): two runs whose quality checks asked
// the same items are paired item by item under the flags: B against A,
// with the loss, its flips and the exact McNemar p (report.QualityCompare,
// as the Markdown and HTML comparisons say it). Runs without checks show
// no quality line.
func TestComparePairsQuality(t *testing.T) {
	test.NewTempApp(t)
	v := compare.New()
	a, b := run("base", 50), run("int4", 70)
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{a, b}, func() { close(done) })
	<-done
	if got := v.Quality(); got != "" {
		t.Errorf("runs without checks show quality %q", got)
	}
	checked(t, a, func(i int) bool { return i < 80 })
	checked(t, b, func(i int) bool { return i >= 15 && i < 80 })
	done = make(chan struct{})
	v.SetRuns([]*rundoc.Run{a, b}, func() { close(done) })
	<-done
	got := v.Quality()
	want := report.QualityCompare([]*rundoc.Run{a, b})
	if len(want) != 1 || !strings.Contains(got, want[0]) {
		t.Fatalf("quality %q, want report.QualityCompare's %q", got, want)
	}
	for _, s := range []string{"B against A", "−15.0 points", "15 right only in the baseline", quality.PText(quality.McNemarExact(15, 0))} {
		if !strings.Contains(got, s) {
			t.Errorf("quality %q lacks %q", got, s)
		}
	}
}
