// Package compare is the Compare view: 2–6 runs (measured or imported, such
// as the reference RTX 3060 run) overlaid on the same charts, and a
// per-cell table of each figure with its change in percent against the
// first run, so the effect of a flag change is obvious.
package compare

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/chartview"
	"github.com/rigbench/rigbench/ui/results"
)

// View is the Compare view. Its methods must run on the Fyne goroutine.
type View struct {
	runs    []*rundoc.Run
	legend  *widget.Label
	figure  *widget.Select
	table   *widget.Table
	t       report.Table
	charts  *chartview.Gallery
	export  *widget.Button
	content fyne.CanvasObject
	// OnExport is called with the compared runs when the user presses
	// Export (the app opens the export dialog).
	OnExport func([]*rundoc.Run)
}

// colWidth is the width of a run's column in the change table.
const colWidth = 220

// New returns an empty Compare view.
func New() *View {
	v := &View{charts: chartview.NewGallery(chart.DecodeTotal, chart.PerRequest, chart.TTFT, chart.Prefill, chart.Pareto)}
	v.legend = widget.NewLabel("Tick two to six runs in History, then press Compare.")
	v.legend.Wrapping = fyne.TextWrapWord
	var names []string
	for _, f := range rundoc.CompareFigures {
		names = append(names, f.Label)
	}
	v.figure = widget.NewSelect(names, func(string) { v.rebuild() })
	v.table = widget.NewTable(
		func() (int, int) { return len(v.t.Rows), 1 + len(v.runs) },
		func() fyne.CanvasObject { return widget.NewLabel("Exceeds model length") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(v.cellText(id.Row, id.Col))
		})
	v.table.ShowHeaderRow = true
	// A run's title is longer than its column: without truncation the
	// header labels ran into each other as one unreadable line. The
	// legend above names each run in full.
	v.table.CreateHeader = func() fyne.CanvasObject {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		o.(*widget.Label).SetText(v.header(id.Col))
	}
	v.export = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), func() {
		if v.OnExport != nil && len(v.runs) > 0 {
			v.OnExport(v.runs)
		}
	})
	v.export.Disable()
	v.figure.SetSelected(names[0])
	tabs := container.NewAppTabs(
		container.NewTabItem("Charts", v.charts.Content()),
		container.NewTabItem("Per-cell change", container.NewBorder(container.NewHBox(widget.NewLabel("Figure"), v.figure), nil, nil, nil, v.table)),
	)
	v.content = container.NewBorder(container.NewBorder(nil, nil, nil, v.export, v.legend), nil, nil, nil, tabs)
	return v
}

// header is the change table's header of column col: the run's letter and
// title (cut to the column in the table).
func (v *View) header(col int) string {
	if col == 0 {
		return "Context × N"
	}
	if col <= len(v.runs) {
		return chart.Letter(col-1) + ": " + results.Title(v.runs[col-1])
	}
	return ""
}

// Export presses the Export button.
func (v *View) Export() { v.export.OnTapped() }

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Runs are the runs compared.
func (v *View) Runs() []*rundoc.Run { return v.runs }

// Rows returns the change table as text (header first).
func (v *View) Rows() [][]string {
	out := [][]string{{v.header(0)}}
	for i := range v.runs {
		out[0] = append(out[0], v.header(i+1))
	}
	for row := range v.t.Rows {
		var line []string
		for col := 0; col <= len(v.runs); col++ {
			line = append(line, v.cellText(row, col))
		}
		out = append(out, line)
	}
	return out
}

// Legend is the line above the tabs naming the runs by letter.
func (v *View) Legend() string { return v.legend.Text }

// ChartsRendered is how many charts hold a drawing.
func (v *View) ChartsRendered() int { return v.charts.Rendered() }

// SetRuns compares runs (2–6; the first is the baseline); chartsDone (may
// be nil) runs when the charts are drawn.
func (v *View) SetRuns(runs []*rundoc.Run, chartsDone func()) {
	// A run without cells (one that failed before its first) has nothing
	// to compare; drawn, the charts would list it like a measured run.
	var kept []*rundoc.Run
	var empty []string
	for _, r := range runs {
		if r != nil && len(r.Cells) == 0 {
			empty = append(empty, results.Title(r))
			continue
		}
		kept = append(kept, r)
	}
	runs = kept
	if len(runs) > chart.MaxRuns {
		runs = runs[:chart.MaxRuns]
	}
	v.runs = runs
	text := ""
	rigs := chart.Rigs(runs) // "on ssh://box3090" where the runs ran on different rigs
	for i, r := range runs {
		if i > 0 {
			text += "   "
		}
		text += chart.Letter(i) + ": " + results.Title(r)
		if rigs != nil && rigs[i] != "" {
			text += " on " + rigs[i]
		}
	}
	if len(runs) > 0 {
		text += "   (changes are against " + chart.Letter(0) + ")"
	}
	if len(empty) > 0 {
		if text != "" {
			text += "\n"
		}
		text += "Left out, since nothing was measured: " + strings.Join(empty, ", ") + "."
	}
	v.legend.SetText(text)
	if len(runs) > 0 {
		v.export.Enable()
	} else {
		v.export.Disable()
	}
	v.rebuild()
	v.charts.Set(runs, chartsDone)
}

func (v *View) rebuild() {
	f := rundoc.CompareFigures[0]
	for _, ff := range rundoc.CompareFigures {
		if ff.Label == v.figure.Selected {
			f = ff
		}
	}
	v.t = report.Compare(v.runs, f)
	for i := 1; i <= len(v.runs); i++ {
		v.table.SetColumnWidth(i, colWidth)
	}
	v.table.SetColumnWidth(0, 120)
	v.table.Refresh()
}

func (v *View) cellText(row, col int) string {
	if row >= len(v.t.Rows) {
		return ""
	}
	r := v.t.Rows[row]
	if col == 0 {
		if v.t.Figure.Phase == rundoc.PhasePrefill {
			return rundoc.ContextLabel(r.Context)
		}
		return rundoc.ContextLabel(r.Context) + " × " + itoa(r.Concurrency)
	}
	e := r.Entries[col-1]
	switch {
	case e.Has && e.HasChange:
		return v.t.EntryText(e) + "  (" + e.ChangeText() + ")"
	}
	return v.t.EntryText(e)
}
