package export

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// findForm returns the first form under o.
func findForm(o fyne.CanvasObject) *widget.Form {
	switch x := o.(type) {
	case *widget.Form:
		return x
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if f := findForm(c); f != nil {
				return f
			}
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			if f := findForm(c); f != nil {
				return f
			}
		}
	}
	return nil
}

// TestExportDialogRows (issue 41 minor 13): the dialog shows only the rows
// a format uses (no "Chart" beside nothing for JSON), PNG offers 2× first
// with its size in pixels, and the dialog offers to export everything.
func TestExportDialogRows(t *testing.T) {
	a := test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1000, 700))
	runs := []*rundoc.Run{ReferenceRun(t)}
	rows := func() (labels []string, form *widget.Form) {
		form = findForm(win.Canvas().Overlays().Top())
		if form == nil {
			t.Fatal("no form in the export dialog")
		}
		for _, it := range form.Items {
			labels = append(labels, it.Text)
		}
		return labels, form
	}
	ShowFormat(win, a, runs, report.JSON)
	if got, _ := rows(); strings.Join(got, ",") != "Format" {
		t.Errorf("JSON rows %v, want Format alone", got)
	}
	format := func(form *widget.Form) *widget.Select { return form.Items[0].Widget.(*widget.Select) }
	_, form := rows()
	format(form).SetSelected(report.PNG.Label())
	got, form := rows()
	if strings.Join(got, ",") != "Format,Chart,PNG size" {
		t.Fatalf("PNG rows %v, want Format, Chart, PNG size", got)
	}
	if size := form.Items[2].Widget.(*widget.Select).Selected; !strings.HasPrefix(size, "2×") || !strings.Contains(size, PNGSize(PNGScale)) {
		t.Errorf("PNG size %q, want 2× with %s", size, PNGSize(PNGScale))
	}
	format(form).SetSelected(report.SVG.Label())
	if got, _ := rows(); strings.Join(got, ",") != "Format,Chart" {
		t.Errorf("SVG rows %v, want Format, Chart", got)
	}
	var texts []string
	buttons := map[string]*widget.Button{}
	collect(win.Canvas().Overlays().Top(), &texts, buttons)
	if buttons[EverythingLabel] == nil {
		t.Errorf("no %q button", EverythingLabel)
	}
}
