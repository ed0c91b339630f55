package quality_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
)

// A category row's line is the CLI's table row as it was printed before
// the report was shared with the app ("%-10s %3d items  %+5.1f points"),
// for counts and changes of every width.
func TestCategoryRowLine(t *testing.T) {
	for _, n := range []int{1, 67, 999, 1319} {
		for _, d := range []float64{0, -4.8, 12.3, -100, 100} {
			for _, name := range []string{"2 steps", "engineering", ""} {
				flips := fmt.Sprintf("(%d lost, %d gained, %s)", n/3, n/7, quality.PText(0.031))
				want := fmt.Sprintf("  %-10s %3d items  %+5.1f points  %s", name, n, d, flips)
				row := quality.CategoryRow{Name: name, Items: fmt.Sprintf("%d items", n), Delta: fmt.Sprintf("%+.1f points", d), Flips: flips}
				if got := row.Line(); got != want {
					t.Errorf("row %q %d %+.1f:\n got %q\nwant %q", name, n, d, got, want)
				}
			}
		}
	}
}

// The report of a pair says what the comparison found: the loss, flagged
// Lost, its flips and p; a gain is not a loss; an unpaired result has no
// comparison lines; a pair of different probes is refused.
func TestReportOfAPair(t *testing.T) {
	mk := func(wrong ...int) *quality.Result {
		r := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:40", Profile: "p", Dataset: &quality.DatasetRef{Name: "d", SHA256: strings.Repeat("ab", 32), Items: 40}, Simulated: true}
		for i := range 40 {
			r.Items = append(r.Items, quality.Item{ID: fmt.Sprint(i), Category: []string{"a", "b"}[i%2], Correct: true, CompletionTokens: 100 + i})
		}
		for _, i := range wrong {
			r.Items[i].Correct = false
		}
		return r
	}
	base, cand := mk(), mk(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	rep, err := quality.NewReport(cand, base)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Lost || !strings.Contains(rep.Against, "10 right only in the baseline, 0 only in this run; exact McNemar "+quality.PText(quality.McNemarExact(10, 0))) ||
		len(rep.Categories) != 2 || rep.Title != "gsm8k:40 on d (sha256 abababababab…), 40 items, asked of the simulator" {
		t.Errorf("a loss of 10 of 40:\n%s", strings.Join(rep.Lines(), "\n"))
	}
	if lines := rep.Lines(); lines[3] != "verdict: "+rep.Verdict || !strings.HasPrefix(lines[3], "verdict: accuracy lost 25.0 points") {
		t.Errorf("verdict line %q", lines[3])
	}
	if gain, _ := quality.NewReport(base, cand); gain.Lost {
		t.Error("a gain reads as a loss")
	}
	alone, _ := quality.NewReport(cand, nil)
	if alone.Against != "" || alone.Verdict != "" || len(alone.Lines()) != 2 {
		t.Errorf("a result alone: %q", alone.Lines())
	}
	other := mk()
	other.Probe = "gsm8k:41"
	if _, err := quality.NewReport(cand, other); err == nil {
		t.Error("a pair of different probes is reported")
	}
}
