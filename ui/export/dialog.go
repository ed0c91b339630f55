package export

import (
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	fc "fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Show opens the export dialog for runs: pick a format, then a file; or
// copy the Markdown to the clipboard.
func Show(win fyne.Window, a fyne.App, runs []*rundoc.Run) {
	var names []string
	byLabel := map[string]report.Format{}
	for _, f := range report.Formats() {
		names = append(names, f.Label())
		byLabel[f.Label()] = f
	}
	// PNG and SVG draw one chart: the user picks which, or all of them
	// into a folder.
	charts := widget.NewSelect(ChartChoices(runs), nil)
	charts.SetSelected(charts.Options[0])
	chartItem := widget.NewFormItem("Chart", charts)
	format := widget.NewSelect(names, nil)
	var form *widget.Form
	format.OnChanged = func(label string) {
		f := byLabel[label]
		if form == nil {
			return
		}
		if f == report.PNG || f == report.SVG {
			chartItem.Widget.Show()
		} else {
			chartItem.Widget.Hide()
		}
		form.Refresh()
	}
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	copyMD := widget.NewButtonWithIcon("Copy Markdown", theme.ContentCopyIcon(), func() {
		md, err := MarkdownText(runs)
		if err != nil {
			status.SetText(err.Error())
			return
		}
		a.Clipboard().SetContent(md)
		status.SetText("Markdown copied to the clipboard.")
	})
	form = widget.NewForm(widget.NewFormItem("Format", format), chartItem)
	format.SetSelected(report.JSON.Label())
	if len(runs) > 1 {
		format.SetSelected(report.HTML.Label())
	}
	content := widget.NewCard("", "", fc.NewVBox(form, copyMD, status))
	d := dialog.NewCustomConfirm("Export", "Save…", "Close", content, func(save bool) {
		if !save {
			return
		}
		f := byLabel[format.Selected]
		isChart := f == report.PNG || f == report.SVG
		if isChart && charts.Selected == AllCharts {
			saveAllCharts(win, f, runs)
			return
		}
		saveOne(win, f, isChart, chartKind(charts.Selected), runs)
	}, win)
	d.Show()
}

// saveOne asks for a file and writes runs into it in format f (one chart
// of kind when isChart).
func saveOne(win fyne.Window, f report.Format, isChart bool, kind chart.Kind, runs []*rundoc.Run) {
	if isChart {
		SaveAs(win, ChartFileName(runs, f, kind), nil, func(path string) error { return WriteChart(path, f, kind, runs) })
		return
	}
	SaveAs(win, report.FileName(runs, f), nil, func(path string) error { return WriteFile(path, f, runs) })
}

// SaveAs asks for a file, offering name and, when exts is not empty, only
// those extensions; it runs write on the chosen path off the UI goroutine
// (a report can take a while) and then shows its error or "Saved <file>."
// on win. Every single-file export of the app goes through it, so they all
// behave and word it alike.
func SaveAs(win fyne.Window, name string, exts []string, write func(path string) error) {
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		go func() {
			err := write(path)
			fyne.Do(func() {
				if err != nil {
					dialog.ShowError(err, win)
					return
				}
				dialog.ShowInformation("Exported", "Saved "+filepath.Base(path)+".", win)
			})
		}()
	}, win)
	fd.SetFileName(name)
	if len(exts) > 0 {
		fd.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	fd.Show()
}

// saveAllCharts asks for a folder and writes every chart into it.
func saveAllCharts(win fyne.Window, f report.Format, runs []*rundoc.Run) {
	dialog.ShowFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil || dir == nil {
			return
		}
		path := dir.Path()
		go func() {
			written, err := WriteAllCharts(path, f, runs)
			fyne.Do(func() {
				if err != nil {
					dialog.ShowError(err, win)
					return
				}
				dialog.ShowInformation("Exported", fmt.Sprintf("Saved %d charts in %s.", len(written), filepath.Base(path)), win)
			})
		}()
	}, win)
}
