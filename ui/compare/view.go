// Package compare is the Compare view: 2–6 runs (measured or imported, such
// as the reference RTX 3060 run) overlaid on the same charts, and a
// per-cell table of each figure with its change in percent against the
// first run, so the effect of a flag change is obvious.
package compare

import (
	"slices"
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
	runs   []*rundoc.Run
	legend *widget.Label
	// flags lists the launch flags that differ between the runs
	// (report.FlagChanges), under the legend.
	flags *widget.Label
	// quality pairs each run's quality check with run A's
	// (report.QualityCompare), under the flags; hidden when no run has one.
	quality *widget.Label
	// gone names the runs compared that were deleted from History since
	// (MarkDeleted).
	gone    *widget.Label
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
	v.flags = widget.NewLabel("")
	v.flags.Wrapping = fyne.TextWrapWord
	v.flags.Hide()
	v.quality = widget.NewLabel("")
	v.quality.Wrapping = fyne.TextWrapWord
	v.quality.Hide()
	v.gone = widget.NewLabel("")
	v.gone.Importance = widget.WarningImportance
	v.gone.Wrapping = fyne.TextWrapWord
	v.gone.Hide()
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
	top := container.NewVBox(container.NewBorder(nil, nil, nil, v.export, v.legend), v.gone, v.flags, v.quality)
	v.content = container.NewBorder(top, nil, nil, nil, tabs)
	return v
}

// header is the change table's header of column col: the run's letter and
// title (cut to the column in the table).
func (v *View) header(col int) string {
	if col == 0 {
		return "Context×N"
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

// ChartsLoading reports whether the charts are being drawn (and the view
// says "Loading the charts…" above them).
func (v *View) ChartsLoading() bool { return v.charts.Loading() }

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
	v.gone.Hide()
	v.setFlags(runs)
	if lines := report.QualityCompare(runs); len(lines) > 0 {
		v.quality.SetText("Quality: " + strings.Join(lines, "\n"))
		v.quality.Show()
	} else {
		v.quality.Hide()
	}
	if len(runs) > 0 {
		v.export.Enable()
	} else {
		v.export.Disable()
	}
	v.rebuild()
	v.charts.Set(runs, chartsDone)
}

// setFlags says which launch flags differ between runs, one per line
// ("--kv-cache-dtype: auto → fp8", in the runs' letter order), that they
// launched with the same flags, or nothing where fewer than two runs have
// a launch record (imported files, endpoints: the legend says what it can).
func (v *View) setFlags(runs []*rundoc.Run) {
	changes := report.FlagChanges(runs)
	recorded := 0
	for _, r := range runs {
		if r.Launch != nil {
			recorded++
		}
	}
	switch {
	case len(changes) > 0:
		lines := make([]string, len(changes))
		for i, c := range changes {
			lines[i] = c.Text()
		}
		v.flags.SetText(FlagsHeading + "\n" + strings.Join(lines, "\n"))
	case recorded >= 2 && len(runs) >= 2:
		v.flags.SetText(SameFlags)
	default:
		v.flags.SetText("")
		v.flags.Hide()
		return
	}
	v.flags.Show()
}

// FlagsHeading heads the list of launch flags that differ between runs.
const FlagsHeading = "Launch flags that differ (A → B …):"

// SameFlags says the compared runs launched with the same flags.
const SameFlags = "Launch flags: the same in every run."

// Quality is the quality pairing shown under the flags ("" when hidden).
func (v *View) Quality() string {
	if v.quality.Visible() {
		return v.quality.Text
	}
	return ""
}

// Flags is the launch-flag lines shown under the legend ("" when hidden).
func (v *View) Flags() string {
	if v.flags.Visible() {
		return v.flags.Text
	}
	return ""
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
		return rundoc.CellName(r.Context, r.Concurrency)
	}
	e := r.Entries[col-1]
	switch {
	case e.Has && e.HasChange, e.Unreliable != "" && col > 1:
		return v.t.EntryText(e) + "  (" + e.ChangeText() + ")"
	}
	return v.t.EntryText(e)
}

// MarkDeleted tells the view that runs were deleted from History: the
// runs compared that were among them are named above the charts ("B was
// deleted from History…") until other runs are compared, as Results says
// of the run it shows, instead of being shown as if they were kept.
func (v *View) MarkDeleted(uuids []string) {
	var letters []string
	for i, r := range v.runs {
		if slices.Contains(uuids, r.UUID) {
			letters = append(letters, chart.Letter(i))
		}
	}
	if len(letters) == 0 {
		return
	}
	were := " was"
	if len(letters) > 1 {
		were = " were"
	}
	v.gone.SetText(strings.Join(letters, ", ") + were + " deleted from History: compared here until you compare other runs, and no longer kept. Export to keep a copy.")
	v.gone.Show()
}

// DeletedNote is the line naming compared runs deleted from History, ""
// when none.
func (v *View) DeletedNote() string {
	if !v.gone.Visible() {
		return ""
	}
	return v.gone.Text
}
