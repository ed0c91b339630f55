package results

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// showCell opens the details of the decode cell (context, concurrency)
// of the run shown, as the matrix's tap handler: everything its record
// holds (report.CellDetails), in a dialog over the window that shows the
// view. A planned cell that has no record yet says so.
func (v *View) showCell(context, concurrency int) {
	win := v.window()
	if v.run == nil || win == nil {
		return
	}
	c := v.run.Find(rundoc.PhaseDecode, context, concurrency)
	title := "Cell " + rundoc.CellName(context, concurrency)
	var body fyne.CanvasObject
	if c == nil {
		body = widget.NewLabel("This cell has not been measured yet.")
	} else {
		form := detailsForm(report.CellDetails(v.run, c))
		if l := v.predictedRow(v.run, c); l != nil {
			form.Add(widget.NewLabelWithStyle(PredictedDetail, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
			form.Add(l)
		}
		body = form
	}
	d := dialog.NewCustom(title, "Close", container.NewVScroll(body), win)
	size := win.Canvas().Size()
	d.Resize(fyne.NewSize(min(620, size.Width-40), min(560, size.Height-40)))
	d.Show()
	dialogkeys.Bind(win, d, d.Hide)
}

// detailsForm lays the details out as label and value, the values
// wrapped so a long reason or readiness line stays inside the dialog.
func detailsForm(ds []report.Detail) *fyne.Container {
	var objs []fyne.CanvasObject
	for _, d := range ds {
		l := widget.NewLabelWithStyle(d.Label, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		t := widget.NewLabel(d.Text)
		t.Wrapping = fyne.TextWrapWord
		objs = append(objs, l, t)
	}
	return container.New(layout.NewFormLayout(), objs...)
}

// window is the window whose canvas shows the view, nil while it is in
// none.
func (v *View) window() fyne.Window {
	app := fyne.CurrentApp()
	if app == nil {
		return nil
	}
	cv := app.Driver().CanvasForObject(v.content)
	for _, w := range app.Driver().AllWindows() {
		if w.Canvas() == cv {
			return w
		}
	}
	return nil
}
