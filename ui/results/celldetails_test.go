//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package results_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/results"
)

// labelTexts joins the text of every label under o.
func labelTexts(o fyne.CanvasObject) string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			out = append(out, x.Text)
		case fyne.Widget:
			walk(test.WidgetRenderer(x).Objects()[0])
			for _, c := range test.WidgetRenderer(x).Objects()[1:] {
				walk(c)
			}
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	return strings.Join(out, "\n")
}

// TestTapCellShowsDetails (issue 41): tapping a cell of Results' matrix
// opens a dialog with what its record holds: ramp, ± , the server's
// cross-check, the notes, in report.CellDetails' words.
func TestTapCellShowsDetails(t *testing.T) {
	test.NewTempApp(t)
	v := results.New()
	w := test.NewWindow(v.Content())
	defer w.Close()
	w.Resize(fyne.NewSize(1000, 700))
	diff := -0.3
	r := run()
	c := &r.Cells[1]
	c.TotalTokSCI95, c.Reason = 4.2, "the server counted 0.3% fewer tokens"
	c.RampS, c.ServerOutputTokens, c.ServerTokenDiffPct = 2.5, 26700, &diff
	v.SetRun(r, nil)
	tap := v.Matrix().Cell(0, 32)
	if tap == nil {
		t.Fatal("no tap area for 0×32")
	}
	test.Tap(tap)
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("tapping 0×32 opened nothing")
	}
	got := labelTexts(top)
	for _, d := range report.CellDetails(r, c) {
		if !strings.Contains(got, d.Label) || !strings.Contains(got, d.Text) {
			t.Errorf("dialog lacks %s: %s\n%s", d.Label, d.Text, got)
		}
	}
	for _, want := range []string{"Cell 0×32", "890.6 ± 4.2 tok/s", "2.5 s", "the server counted 0.3% fewer tokens", rundoc.FigServerTokenDiff.Title} {
		if !strings.Contains(got, want) {
			t.Errorf("dialog lacks %q:\n%s", want, got)
		}
	}
}
