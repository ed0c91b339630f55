package results

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// The Quality tab (METHOD.md: Quality (paired check)): the run's quality
// check as the reports write it (report.QualityRows), so the app, the CLI's
// show, Markdown and HTML say the same thing.

// noQuality is what the tab says for a run measured without a check.
const noQuality = "No quality check was asked with this run. A Tune sweep with a quality check " +
	"(or rigbench-cli run --quality) asks one after the matrix, paired with the base launch's."

// qualityTab shows a run's quality rows, label beside text.
type qualityTab struct {
	form    *widget.Form
	none    *widget.Label
	content fyne.CanvasObject
	rows    [][2]string
}

func newQualityTab() *qualityTab {
	q := &qualityTab{form: widget.NewForm(), none: widget.NewLabel(noQuality)}
	q.none.Wrapping = fyne.TextWrapWord
	q.content = container.NewVScroll(container.NewVBox(q.none, q.form))
	return q
}

// set shows r's check, or says there is none.
func (q *qualityTab) set(r *rundoc.Run) {
	q.rows = nil
	if r != nil {
		q.rows = report.QualityRows(r)
	}
	q.form.Items = nil
	for _, row := range q.rows {
		text := widget.NewLabel(row[1])
		text.Wrapping = fyne.TextWrapWord
		q.form.Append(row[0], text)
	}
	q.form.Refresh()
	if len(q.rows) == 0 {
		q.none.Show()
	} else {
		q.none.Hide()
	}
}

// QualityRows are the Quality tab's rows, label and text, as shown
// (nil when the run has no check).
func (v *View) QualityRows() [][2]string { return v.quality.rows }
