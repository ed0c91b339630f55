package qualityview_test

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/ui/qualityview"
	"github.com/rigbench/rigbench/ui/wording"
)

// result is a gsm8k:n result whose items in wrong are answered wrong.
func result(n int, wrong ...int) *quality.Result {
	r := &quality.Result{Kind: quality.Kind, Probe: fmt.Sprintf("gsm8k:%d", n), Profile: "p",
		Dataset: &quality.DatasetRef{Name: "d", SHA256: strings.Repeat("0f", 32), Items: n}, Endpoint: "http://127.0.0.1:8000"}
	for i := range n {
		r.Items = append(r.Items, quality.Item{ID: fmt.Sprint(i), Category: []string{"x", "y", "z"}[i%3], Correct: true, CompletionTokens: 50 + i%7})
	}
	for _, i := range wrong {
		r.Items[i].Correct = false
	}
	return r
}

// The view shows the CLI's lines for a pair, each a sentence but the
// title and the category rows (which are table cells), and the verdict of
// a loss in the danger colour.
func TestViewShowsTheReport(t *testing.T) {
	test.NewTempApp(t)
	v := qualityview.New()
	base, cand := result(60), result(60, 3, 6, 9, 12, 15, 18, 21, 24)
	if err := v.Set(cand, base); err != nil {
		t.Fatal(err)
	}
	rep, _ := quality.NewReport(cand, base)
	lines, shown := rep.Lines(), v.Text()
	if len(shown) != len(lines) {
		t.Fatalf("shown %d lines, the report has %d:\n%s", len(shown), len(lines), strings.Join(shown, "\n"))
	}
	for i, l := range lines {
		if i > 0 && !strings.HasPrefix(l, "  ") {
			l = wording.Sentence(l)
		}
		if shown[i] != l {
			t.Errorf("line %d = %q, want %q", i+1, shown[i], l)
		}
	}
	if got := v.Report(); !got.Lost || len(got.Categories) != 3 {
		t.Errorf("report shown: lost %v, %d categories", got.Lost, len(got.Categories))
	}

	// A pair that does not pair leaves the view as it was.
	other := result(61)
	if err := v.Set(cand, other); err == nil {
		t.Error("gsm8k:60 against gsm8k:61 is shown")
	}
	if again := v.Text(); strings.Join(again, "\n") != strings.Join(shown, "\n") {
		t.Errorf("a refused pair changed the view:\n%s", strings.Join(again, "\n"))
	}

	// Alone, a task probe shows its accuracy only; nil empties the view.
	v.Set(cand, nil)
	if got := v.Text(); len(got) != 2 || !strings.HasPrefix(got[1], "Accuracy 86.7% (52/60)") {
		t.Errorf("a result alone: %q", got)
	}
	v.Set(nil, nil)
	if got := v.Text(); len(got) != 0 {
		t.Errorf("an emptied view shows %q", got)
	}
}

// An agreement probe alone measures nothing yet: the view says how to
// use it as a baseline.
func TestViewAgreementAloneHints(t *testing.T) {
	test.NewTempApp(t)
	v := qualityview.New()
	r := &quality.Result{Kind: quality.Kind, Probe: "agreement", Simulated: true, Flags: []string{"--kv-cache-dtype", "fp8"},
		Prompts: []quality.PromptTokens{{ID: "a", Tokens: []string{"x", "y"}}}}
	if err := v.Set(r, nil); err != nil {
		t.Fatal(err)
	}
	got := v.Text()
	want := []string{"agreement: 1 prompts × 2 greedy tokens with top-k logprobs, asked of the simulator (--kv-cache-dtype fp8)", qualityview.Hint}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("agreement alone shows %q, want %q", got, want)
	}
}
