package export

import (
	"errors"
	"fmt"
	"os"
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
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
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
//
// The chosen file is not touched before it passes the Guard of the app's
// history (see notruncate.go): an export can never replace the history,
// its -wal/-shm files or a sweep spec.
func SaveAs(win fyne.Window, name string, exts []string, write func(path string) error) {
	if !keepFilesUntilWritten() {
		dialog.ShowError(errors.New("this system's file dialog would empty the chosen file before RigBench could check it; export from the CLI instead"), win)
		return
	}
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		saveChosen(win, w, write)
	}, win)
	fd.SetFileName(name)
	if len(exts) > 0 {
		fd.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	fd.Show()
}

// saveChosen is what SaveAs does with the dialog's unwritten writer w:
// close it, refuse a path the app's Guard keeps, and run write on the path
// off the UI goroutine; the outcome is shown on win. It reports whether
// write was started.
func saveChosen(win fyne.Window, w fyne.URIWriteCloser, write func(path string) error) bool {
	path := w.URI().Path()
	w.Close()
	if err := appGuard().Check(path); err != nil {
		dialog.ShowError(err, win)
		return false
	}
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
	return true
}

// appGuard keeps the app's history (the one the History view opens:
// $RIGBENCH_DB, else the user data folder), its companions and its sweep
// specs.
func appGuard() *safefile.Guard {
	g := &safefile.Guard{}
	if p, err := store.ResolvePath("", os.Getenv); err == nil {
		for _, f := range store.Files(p) {
			g.Keep(f, "the history of runs")
		}
		g.KeepDir(tune.SpecDir(p), "a sweep spec, kept beside the history so the sweep can be resumed")
	}
	return g
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
