package export

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

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
	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// Show opens the export dialog for runs: pick a format (and for a chart,
// which one and, for PNG, its size), then a file; or write everything
// into a folder at once; or copy the Markdown to the clipboard.
func Show(win fyne.Window, a fyne.App, runs []*rundoc.Run) {
	f := report.JSON
	if len(runs) > 1 {
		f = report.HTML
	}
	ShowFormat(win, a, runs, f)
}

// ShowFormat is Show with format f chosen at the start (the screenshot
// tour shows the PNG rows).
func ShowFormat(win fyne.Window, a fyne.App, runs []*rundoc.Run, f report.Format) {
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
	sizes := map[string]float64{}
	var sizeNames []string
	for _, sc := range []float64{PNGScale, 1} {
		n := fmt.Sprintf("%g× (%s)", sc, PNGSize(sc))
		sizes[n] = sc
		sizeNames = append(sizeNames, n)
	}
	size := widget.NewSelect(sizeNames, nil)
	size.SetSelected(sizeNames[0])
	format := widget.NewSelect(names, nil)
	formatItem := widget.NewFormItem("Format", format)
	chartItem := widget.NewFormItem("Chart", charts)
	sizeItem := widget.NewFormItem("PNG size", size)
	form := widget.NewForm(formatItem)
	// Only the rows the format uses: a "Chart" label with nothing beside
	// it for JSON read as a fault (issue 41 minor 13).
	format.OnChanged = func(label string) {
		items := []*widget.FormItem{formatItem}
		switch byLabel[label] {
		case report.PNG:
			items = append(items, chartItem, sizeItem)
		case report.SVG:
			items = append(items, chartItem)
		}
		form.Items = items
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
	format.SetSelected(f.Label())
	var d *dialog.ConfirmDialog
	everything := widget.NewButtonWithIcon(EverythingLabel, theme.FolderIcon(), func() {
		d.Hide()
		chooseFolder(win, func(dir string) { exportEverything(win, dir, runs, sizes[size.Selected], nil) })
	})
	note := widget.NewLabel(EverythingNote(runs))
	note.Wrapping = fyne.TextWrapWord
	note.Importance = widget.LowImportance
	content := widget.NewCard("", "", fc.NewVBox(form, widget.NewSeparator(), everything, note, copyMD, status))
	d = dialog.NewCustomConfirm("Export", "Save…", "Close", content, func(save bool) {
		if !save {
			return
		}
		f := byLabel[format.Selected]
		isChart := f == report.PNG || f == report.SVG
		if isChart && charts.Selected == AllCharts {
			saveAllCharts(win, f, runs, sizes[size.Selected])
			return
		}
		saveOne(win, f, isChart, chartKind(charts.Selected), runs, sizes[size.Selected])
	}, win)
	d.Resize(fyne.NewSize(min(560, win.Canvas().Size().Width-40), 0))
	d.Show()
	dialogkeys.Bind(win, d, d.Confirm)
}

// EverythingLabel is the export dialog's button that writes every format
// into one folder.
const EverythingLabel = "Export everything to a folder…"

// EverythingNote says what "export everything" writes for runs.
func EverythingNote(runs []*rundoc.Run) string {
	what := "JSON, CSV, Markdown, HTML"
	if len(runs) > 1 {
		what = "each run's JSON and CSV, the comparison's Markdown and HTML"
	}
	return fmt.Sprintf("Writes %s and every chart as PNG (at the size above) and SVG, the same files as the CLI's export.", what)
}

// saveOne asks for a file and writes runs into it in format f (one chart
// of kind when isChart, a PNG at scale).
func saveOne(win fyne.Window, f report.Format, isChart bool, kind chart.Kind, runs []*rundoc.Run, scale float64) {
	if isChart {
		SaveAs(win, ChartFileName(runs, f, kind), nil, func(path string) error { return WriteChart(path, f, kind, runs, scale) })
		return
	}
	SaveAs(win, report.FileName(runs, f), nil, func(path string) error { return WriteFile(path, f, runs) })
}

// saveChosen is what SaveAs does with the dialog's unwritten writer w:
// close it, refuse a path the app's Guard keeps, and run write on the path
// off the UI goroutine; the outcome is shown on win. It reports whether
// write was started.
func saveChosen(win fyne.Window, w fyne.URIWriteCloser, write func(path string) error) bool {
	path := w.URI().Path()
	w.Close()
	return saveTo(win, path, write)
}

// saveTo refuses a path the app's Guard keeps, else runs write on it off
// the UI goroutine and shows the outcome on win; it reports whether write
// was started. Both ways of choosing a file end here (a typed path, the
// file dialog's writer).
func saveTo(win fyne.Window, path string, write func(path string) error) bool {
	if err := appGuard().Check(path); err != nil {
		dialogkeys.ShowError(err, win)
		return false
	}
	go func() {
		err := write(path)
		fyne.Do(func() {
			if err != nil {
				dialogkeys.ShowError(err, win)
				return
			}
			showSaved(win, filepath.Dir(path), []string{path})
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
func saveAllCharts(win fyne.Window, f report.Format, runs []*rundoc.Run, scale float64) {
	chooseFolder(win, func(dir string) {
		go func() {
			written, err := WriteAllCharts(dir, f, runs, scale)
			fyne.Do(func() { showOutcome(win, dir, written, err) })
		}()
	})
}

// chooseFolder asks for a folder and calls chosen with its path.
func chooseFolder(win fyne.Window, chosen func(dir string)) {
	dialog.ShowFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil || dir == nil {
			return
		}
		chosen(dir.Path())
	}, win)
}

// ExportEverything is what choosing a folder for "export everything"
// runs, for a caller that has the folder already (the screenshot tour):
// see exportEverything.
func ExportEverything(win fyne.Window, dir string, runs []*rundoc.Run, done func()) {
	exportEverything(win, dir, runs, PNGScale, done)
}

// exportEverything writes runs into dir in every format (WriteEverything)
// off the UI goroutine, then shows what it wrote where, or why not; done
// (may be nil) runs after, on the Fyne goroutine.
func exportEverything(win fyne.Window, dir string, runs []*rundoc.Run, scale float64, done func()) {
	go func() {
		written, err := WriteEverything(dir, runs, scale)
		fyne.Do(func() {
			showOutcome(win, dir, written, err)
			if done != nil {
				done()
			}
		})
	}()
}

// showOutcome shows an export's error, or the files it wrote.
func showOutcome(win fyne.Window, dir string, written []string, err error) {
	if err != nil {
		dialogkeys.ShowError(err, win)
		return
	}
	showSaved(win, dir, written)
}

// openURL opens a URL with the system's handler (a seam for the tests:
// Fyne's test app opens nothing).
var openURL = func(u *url.URL) error { return fyne.CurrentApp().OpenURL(u) }

// showSaved says which files an export wrote and in which folder, in
// full, with a button that opens the folder in the system's file manager
// (issue 41: "Saved <file>" named no folder and offered no way there).
func showSaved(win fyne.Window, dir string, written []string) {
	msg := "Saved " + filepath.Base(written[0]) + " in " + dir + "."
	if len(written) > 1 {
		msg = fmt.Sprintf("Saved %d files in %s.", len(written), dir)
	}
	head := widget.NewLabel(msg)
	head.Wrapping = fyne.TextWrapWord
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	list := widget.NewLabel(strings.Join(names, "\n"))
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	status.Hide()
	open := widget.NewButtonWithIcon(OpenFolderLabel, theme.FolderOpenIcon(), func() {
		u, err := url.Parse(storage.NewFileURI(dir).String())
		if err == nil {
			err = openURL(u)
		}
		if err != nil {
			status.SetText("Could not open the folder: " + err.Error())
			status.Show()
		}
	})
	body := fc.NewBorder(head, fc.NewVBox(fc.NewHBox(open), status), nil, nil, fc.NewVScroll(list))
	d := dialog.NewCustom("Exported", "Close", body, win)
	size := win.Canvas().Size()
	d.Resize(fyne.NewSize(min(560, size.Width-40), min(120+float32(len(names))*24, size.Height-40)))
	d.Show()
	dialogkeys.Bind(win, d, d.Hide)
}

// OpenFolderLabel is the button of the export's outcome that opens the
// folder written to.
const OpenFolderLabel = "Open folder"
