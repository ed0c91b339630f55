package export

import (
	"path/filepath"

	"fyne.io/fyne/v2"
	fc "fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
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
	format := widget.NewSelect(names, nil)
	format.SetSelected(report.JSON.Label())
	if len(runs) > 1 {
		format.SetSelected(report.HTML.Label())
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
	form := widget.NewForm(widget.NewFormItem("Format", format))
	content := widget.NewCard("", "", fc.NewVBox(form, copyMD, status))
	d := dialog.NewCustomConfirm("Export", "Save…", "Close", content, func(save bool) {
		if !save {
			return
		}
		f := byLabel[format.Selected]
		fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err != nil || w == nil {
				return
			}
			path := w.URI().Path()
			w.Close()
			go func() {
				err := WriteFile(path, f, runs)
				fyne.Do(func() {
					if err != nil {
						dialog.ShowError(err, win)
						return
					}
					dialog.ShowInformation("Exported", "Saved "+filepath.Base(path)+".", win)
				})
			}()
		}, win)
		fd.SetFileName(report.FileName(runs, f))
		fd.Show()
	}, win)
	d.Show()
}
