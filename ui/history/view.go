package history

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// View is the History view. Its methods must run on the Fyne goroutine.
type View struct {
	src      Source
	win      fyne.Window
	all      []Entry
	shown    []Entry
	selected []string // UUIDs, in the order picked
	renaming *widget.Entry
	filter   *widget.Entry
	rigs     *widget.Select // every rig of the history, or allRigs
	table    *widget.Table
	info     *widget.Label
	empty    *widget.Label
	widths   []float32
	content  fyne.CanvasObject

	// OnShow opens a run in Results; OnCompare compares the selection;
	// OnExport exports it.
	OnShow    func(*rundoc.Run)
	OnCompare func([]*rundoc.Run)
	OnExport  func([]*rundoc.Run)
	// OnEdited is called after a rename, tag, note or delete has been
	// written and the list reloaded (tests wait on it).
	OnEdited func()
	// OnRenamed is told a run's new name once it is written and the list
	// reloaded, so views showing the run (Results, Compare) name it anew.
	OnRenamed func(uuid, name string)
	// OnDeleted is told the UUIDs of runs deleted from the history, once
	// the list is reloaded, so a view still showing one says so.
	OnDeleted func(uuids []string)
	// settled (tests) is called on the Fyne goroutine after an import or a
	// load of the selected runs has shown its outcome.
	settled func()
}

// New builds the view over src; note explains a session-only history ("" for
// the database).
func New(win fyne.Window, src Source, note string) *View {
	v := &View{src: src, win: win}
	v.filter = widget.NewEntry()
	v.filter.SetPlaceHolder("Filter by model, GPU, tag, note…")
	v.filter.OnChanged = func(string) { v.applyFilter() }
	v.rigs = widget.NewSelect([]string{allRigs}, func(string) { v.applyFilter() })
	v.rigs.Selected = allRigs // set, not picked: the table is not built yet
	v.info = widget.NewLabel(note)
	v.info.Wrapping = fyne.TextWrapWord
	v.table = widget.NewTable(
		func() (int, int) { return len(v.shown), len(columns) },
		func() fyne.CanvasObject {
			c := newCell(v.toggleRow, v.openRow)
			c.Text = "2025-01-01 00:00"
			return c
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			e := v.shown[id.Row]
			c := o.(*cell)
			c.row = id.Row
			c.SetText(cellText(e, id.Col, slices.Contains(v.selected, e.Run.UUID)))
		})
	v.table.ShowHeaderRow = true
	v.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText(columns[id.Col])
		}
	}
	// The keyboard's selection (arrows, space) ticks as a click does.
	v.table.OnSelected = func(id widget.TableCellID) {
		v.table.UnselectAll()
		v.toggleRow(id.Row)
	}
	v.widths = make([]float32, len(columns))
	v.fitColumns()
	bar := container.NewHBox(
		widget.NewButtonWithIcon("Show", theme.VisibilityIcon(), v.show),
		widget.NewButtonWithIcon("Compare", theme.ListIcon(), v.compare),
		widget.NewButtonWithIcon("Export", theme.DocumentSaveIcon(), v.export),
		widget.NewButtonWithIcon("Rename", theme.DocumentCreateIcon(), v.rename),
		widget.NewButtonWithIcon("Tags & notes", theme.InfoIcon(), v.annotate),
		widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), v.deleteSelected),
		widget.NewButtonWithIcon("Import…", theme.FolderOpenIcon(), v.ImportDialog),
	)
	v.empty = widget.NewLabel("")
	v.empty.Wrapping = fyne.TextWrapWord
	v.empty.Alignment = fyne.TextAlignCenter
	v.empty.Hide()
	// The empty table's sentence sits under its header row, which it was
	// painted over.
	header := canvas.NewRectangle(color.Transparent)
	header.SetMinSize(fyne.NewSize(1, widget.NewLabel("Date").MinSize().Height+theme.Padding()))
	filters := container.NewBorder(nil, nil, nil, v.rigs, v.filter)
	v.content = container.NewBorder(container.NewVBox(v.info, filters, bar), nil, nil, nil,
		container.NewStack(v.table, container.NewBorder(header, nil, nil, nil, container.NewVBox(v.empty))))
	return v
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Source is the view's history.
func (v *View) Source() Source { return v.src }

// Reload reads the list again (off the UI goroutine) and shows it.
func (v *View) Reload() { v.ReloadThen(nil) }

// ReloadThen reloads and then calls done (may be nil) on the Fyne
// goroutine once the table shows the new list.
func (v *View) ReloadThen(done func()) {
	go func() {
		runs, err := v.src.List(context.Background())
		fyne.Do(func() {
			if err != nil {
				v.info.SetText(err.Error())
			} else {
				v.all = runs
				v.applyFilter()
			}
			if done != nil {
				done()
			}
		})
	}()
}

// Set shows runs directly (the caller loaded them).
func (v *View) Set(runs []*rundoc.Run) {
	v.all = v.all[:0]
	for _, r := range runs {
		v.all = append(v.all, EntryOf(r))
	}
	v.applyFilter()
}

// Shown returns the runs the table lists, in order (from the database
// without their cells).
func (v *View) Shown() []*rundoc.Run {
	out := make([]*rundoc.Run, len(v.shown))
	for i, e := range v.shown {
		out[i] = e.Run
	}
	return out
}

// Note is the line above the filter: where the history lives, or why it
// lasts only until RigBench closes.
func (v *View) Note() string { return v.info.Text }

// SetNote replaces the line above the filter.
func (v *View) SetNote(s string) { v.info.SetText(s) }

// Cell is the text of one table cell as shown (row and column from 0).
func (v *View) Cell(row, col int) string {
	if row < 0 || row >= len(v.shown) || col < 0 || col >= len(columns) {
		return ""
	}
	e := v.shown[row]
	return cellText(e, col, slices.Contains(v.selected, e.Run.UUID))
}

// SetFilter types a filter.
func (v *View) SetFilter(s string) { v.filter.SetText(s) }

// allRigs is the rig filter's choice that keeps every run.
const allRigs = "All rigs"

// Rigs are the rig filter's choices: "All rigs", then each rig the
// history's runs name, in order of first appearance (newest first).
func (v *View) Rigs() []string { return v.rigs.Options }

// SetRig picks the rig filter's choice ("All rigs" or a rig's name).
func (v *View) SetRig(name string) { v.rigs.SetSelected(name) }

// updateRigs offers every rig the listed runs name; a picked rig that no
// run names any more falls back to all rigs.
func (v *View) updateRigs() {
	opts := []string{allRigs}
	for _, e := range v.all {
		if e.Rig != "" && !slices.Contains(opts, e.Rig) {
			opts = append(opts, e.Rig)
		}
	}
	v.rigs.Options = opts
	if !slices.Contains(opts, v.rigs.Selected) {
		v.rigs.Selected = allRigs
	}
	v.rigs.Refresh()
}

// Selected returns the selected runs, in the order picked.
func (v *View) Selected() []*rundoc.Run {
	var out []*rundoc.Run
	for _, id := range v.selected {
		for _, e := range v.all {
			if e.Run.UUID == id {
				out = append(out, e.Run)
			}
		}
	}
	return out
}

// toggleRow ticks or unticks the run listed at row.
func (v *View) toggleRow(row int) {
	if row >= 0 && row < len(v.shown) {
		v.Toggle(v.shown[row].Run.UUID)
	}
}

// openRow shows the run listed at row in Results (a double-click), read
// whole off the UI goroutine.
func (v *View) openRow(row int) {
	if row < 0 || row >= len(v.shown) || v.OnShow == nil {
		return
	}
	id := v.shown[row].Run.UUID
	go func() {
		r, err := v.src.Get(context.Background(), id)
		fyne.Do(func() {
			if err != nil {
				dialogkeys.ShowError(err, v.win)
				return
			}
			v.OnShow(r)
		})
	}()
}

// Toggle selects or deselects a run; at most chart.MaxRuns stay selected.
func (v *View) Toggle(uuid string) {
	if i := slices.Index(v.selected, uuid); i >= 0 {
		v.selected = slices.Delete(v.selected, i, i+1)
	} else {
		if len(v.selected) >= chart.MaxRuns {
			v.selected = v.selected[1:]
		}
		v.selected = append(v.selected, uuid)
	}
	v.table.Refresh()
}

// maxColumnWidth caps a column fitted to its text: a long name or model is
// cut with an ellipsis instead of pushing the other columns out of view.
// It has one cap per column: the index below is out of range, and the
// package does not compile, when a column is added without its cap.
var maxColumnWidth = [...]float32{36, 160, 300, 200, 200, 220, 260, 160, 110, 170, 200}

var _ = [1]struct{}{}[len(columns)-len(maxColumnWidth)]

// fitColumns makes each column as wide as its header and the longest text
// of the listed runs, up to its cap, so a short window still shows whole
// dates, engines and statuses rather than fixed widths that cut them.
func (v *View) fitColumns() {
	pad := 2*theme.InnerPadding() + theme.Padding()
	size := theme.TextSize()
	for col, name := range columns {
		w := fyne.MeasureText(name, size, fyne.TextStyle{Bold: true}).Width
		for _, e := range v.all {
			w = max(w, fyne.MeasureText(cellText(e, col, true), size, fyne.TextStyle{}).Width)
		}
		w = min(w+pad, maxColumnWidth[col])
		if col == 1 {
			w = max(w, fyne.MeasureText("2025-01-01 00:00", size, fyne.TextStyle{}).Width+pad)
		}
		if w != v.widths[col] {
			v.widths[col] = w
			v.table.SetColumnWidth(col, w)
		}
	}
}

// ColumnWidth is the width of a table column.
func (v *View) ColumnWidth(col int) float32 {
	if col < 0 || col >= len(v.widths) {
		return 0
	}
	return v.widths[col]
}

func (v *View) applyFilter() {
	v.fitColumns()
	v.updateRigs()
	rig := v.rigs.Selected
	v.shown = v.shown[:0]
	for _, e := range v.all {
		if matches(e, v.filter.Text) && (rig == allRigs || e.Rig == rig) {
			v.shown = append(v.shown, e)
		}
	}
	// An empty table says why: nothing saved yet, or a filter that
	// matches nothing.
	switch {
	case len(v.shown) > 0:
		v.empty.Hide()
	case len(v.all) == 0:
		v.empty.SetText("No runs yet. Runs appear here as they are measured; Import… adds runs from files.")
		v.empty.Show()
	case rig != allRigs && strings.TrimSpace(v.filter.Text) == "":
		v.empty.SetText(fmt.Sprintf("No run on %s. Pick All rigs to see all %d runs.", rig, len(v.all)))
		v.empty.Show()
	case rig != allRigs:
		v.empty.SetText(fmt.Sprintf("No run on %s matches “%s”. Clear the filter and pick All rigs to see all %d runs.", rig, strings.TrimSpace(v.filter.Text), len(v.all)))
		v.empty.Show()
	default:
		v.empty.SetText(fmt.Sprintf("No run matches “%s”. Clear the filter to see all %d runs.", strings.TrimSpace(v.filter.Text), len(v.all)))
		v.empty.Show()
	}
	v.table.Refresh()
}

// EmptyMessage is what the table says when it lists nothing ("" while it
// lists runs).
func (v *View) EmptyMessage() string {
	if v.empty.Visible() {
		return v.empty.Text
	}
	return ""
}

// full loads the selected runs with their cells, off the UI goroutine.
func (v *View) full(least int, then func([]*rundoc.Run)) {
	sel := v.Selected()
	if len(sel) < least {
		if least == 2 {
			dialogkeys.ShowInformation("Pick runs", "Tick two to six runs to compare them.", v.win)
		} else {
			dialogkeys.ShowInformation("Pick a run", "Tick a run in the table first.", v.win)
		}
		return
	}
	go func() {
		var out []*rundoc.Run
		var err error
		for _, r := range sel {
			var g *rundoc.Run
			if g, err = v.src.Get(context.Background(), r.UUID); err != nil {
				break
			}
			out = append(out, g)
		}
		fyne.Do(func() {
			defer v.settle()
			if err != nil {
				dialogkeys.ShowError(err, v.win)
				return
			}
			then(out)
		})
	}()
}

func (v *View) show() {
	v.full(1, func(rs []*rundoc.Run) {
		if v.OnShow != nil {
			v.OnShow(rs[len(rs)-1])
		}
	})
}

func (v *View) compare() {
	v.full(2, func(rs []*rundoc.Run) {
		for _, r := range rs {
			if len(r.Cells) == 0 {
				dialogkeys.ShowInformation("Nothing to compare",
					fmt.Sprintf("%s has no measurements (it stopped before its first cell): untick it and compare the others.", runLabel(r)), v.win)
				return
			}
		}
		if v.OnCompare != nil {
			v.OnCompare(rs)
		}
	})
}

func (v *View) export() {
	v.full(1, func(rs []*rundoc.Run) {
		if v.OnExport != nil {
			v.OnExport(rs)
		}
	})
}

// one returns the single selected run for edits, or says to pick one.
func (v *View) one() *rundoc.Run {
	sel := v.Selected()
	if len(sel) != 1 {
		dialogkeys.ShowInformation("Pick one run", "Tick exactly one run to edit it.", v.win)
		return nil
	}
	return sel[0]
}

// oneFull loads the single selected run complete (the list leaves notes
// out) off the UI goroutine and hands it to then.
func (v *View) oneFull(then func(*rundoc.Run)) {
	if v.one() == nil {
		return
	}
	v.full(1, func(rs []*rundoc.Run) { then(rs[0]) })
}

func (v *View) rename() { v.oneFull(v.renameDialog) }

func (v *View) renameDialog(r *rundoc.Run) {
	e := dialogkeys.NewField()
	// The field starts with the name the table shows, ready to edit.
	e.SetText(displayName(r))
	d := dialogkeys.Form("Rename run", "Rename", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", e)}, func(ok bool) {
		if ok {
			v.RenameRun(r.UUID, e.Text)
		}
	}, v.win, e)
	// Wide enough for a default name (model, flags, date) to show whole.
	d.Resize(fyne.NewSize(560, d.MinSize().Height))
	v.renaming = &e.Entry
	d.Show()
	dialogkeys.Bind(v.win, d, d.Submit)
	v.win.Canvas().Focus(e)
}

// RenameRun writes a run's new name (what the rename dialog's Rename
// does), reloads the list and tells OnRenamed.
func (v *View) RenameRun(uuid, name string) {
	name = strings.TrimSpace(name)
	v.editThen(func(ctx context.Context) error { return v.src.Rename(ctx, uuid, name) }, func() {
		if v.OnRenamed != nil {
			v.OnRenamed(uuid, name)
		}
	})
}

// RenameField is the open rename dialog's name field (nil before one has
// opened).
func (v *View) RenameField() *widget.Entry { return v.renaming }

// Rename opens the rename dialog for the single ticked run.
func (v *View) Rename() { v.rename() }

func (v *View) annotate() { v.oneFull(v.annotateDialog) }

func (v *View) annotateDialog(r *rundoc.Run) {
	tags := dialogkeys.NewField()
	tags.SetText(strings.Join(r.Tags, ", "))
	notes := widget.NewMultiLineEntry()
	notes.SetText(r.Notes)
	dialogkeys.ShowForm("Tags and notes", "Save", "Cancel", []*widget.FormItem{
		widget.NewFormItem("Tags", tags), widget.NewFormItem("Notes", notes),
	}, func(ok bool) {
		if ok {
			var ts []string
			for _, t := range strings.Split(tags.Text, ",") {
				if t = strings.TrimSpace(t); t != "" {
					ts = append(ts, t)
				}
			}
			v.edit(func(ctx context.Context) error {
				if err := v.src.SetTags(ctx, r.UUID, ts); err != nil {
					return err
				}
				return v.src.SetNotes(ctx, r.UUID, notes.Text)
			})
		}
	}, v.win, tags)
}

// AskDelete is the Delete button: it asks before deleting the ticked runs.
func (v *View) AskDelete() { v.deleteSelected() }

func (v *View) deleteSelected() {
	sel := v.Selected()
	if len(sel) == 0 {
		dialogkeys.ShowInformation("Pick runs", "Tick the runs to delete first.", v.win)
		return
	}
	title, msg := DeletePrompt(sel)
	// Cancel is the default: Enter and Escape keep the runs.
	dialogkeys.Destructive(title, msg, "Delete", func(ok bool) {
		if ok {
			v.Delete(sel)
		}
	}, v.win)
}

// DeletePrompt is the delete confirmation's title and question, naming the
// runs (the first three, then how many more).
func DeletePrompt(runs []*rundoc.Run) (title, msg string) {
	var names []string
	for i, r := range runs {
		if i == 3 {
			names = append(names, fmt.Sprintf("%d more", len(runs)-3))
			break
		}
		names = append(names, "“"+runLabel(r)+"”")
	}
	list := strings.Join(names, ", ")
	if len(runs) == 1 {
		return "Delete this run?", "Delete the run " + list + " from the history? This cannot be undone." + sweepWarning(runs)
	}
	return fmt.Sprintf("Delete %d runs?", len(runs)), fmt.Sprintf("Delete %d runs (%s) from the history? This cannot be undone.", len(runs), list) + sweepWarning(runs)
}

// sweepWarning is what deleting runs does to the Tune sweeps they are
// variants of ("" when none is): the sweep keeps its verdict, judged
// without them, and Tune's Resume can measure them again.
func sweepWarning(runs []*rundoc.Run) string {
	var ids []string
	n := 0
	for _, r := range runs {
		if id, ok := tune.SweepOf(r.Tags); ok {
			n++
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1 && len(runs) == 1:
		return fmt.Sprintf("\n\nThis run is a variant of Tune sweep %s: the sweep's verdict will be judged without it (Resume in Tune measures it again).", ids[0])
	case n == 1:
		return fmt.Sprintf("\n\nOne of these runs is a variant of Tune sweep %s: the sweep's verdict will be judged without it (Resume in Tune measures it again).", ids[0])
	case len(ids) == 1:
		return fmt.Sprintf("\n\n%d of these runs are variants of Tune sweep %s: the sweep's verdict will be judged without them (Resume in Tune measures them again).", n, ids[0])
	}
	return fmt.Sprintf("\n\n%d of these runs are variants of Tune sweeps %s: those verdicts will be judged without them (Resume in Tune measures them again).", n, strings.Join(ids, ", "))
}

// Delete removes runs without asking (the confirmation is the caller's).
func (v *View) Delete(runs []*rundoc.Run) {
	// Cleared before the edit starts: its reload redraws the table, which
	// reads the selection.
	v.selected = nil
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.UUID
	}
	v.editThen(func(ctx context.Context) error {
		for _, id := range ids {
			if err := v.src.Delete(ctx, id); err != nil {
				return err
			}
		}
		return nil
	}, func() {
		if v.OnDeleted != nil {
			v.OnDeleted(ids)
		}
	})
}

// Latest is the newest run in the history by its own date (without its
// cells; nil when the history is empty): Results opens it at start, so a
// restart does not say "no run" beside a History full of runs.
func (v *View) Latest() *rundoc.Run {
	var out *rundoc.Run
	for _, e := range v.all {
		if out == nil || e.Run.CreatedAt.After(out.CreatedAt) {
			out = e.Run
		}
	}
	return out
}

// edit runs a change off the UI goroutine, then reloads.
func (v *View) edit(f func(ctx context.Context) error) { v.editThen(f, nil) }

// editThen is edit, calling ok (may be nil) after a successful write once
// the list is reloaded, before OnEdited.
func (v *View) editThen(f func(ctx context.Context) error, ok func()) {
	go func() {
		err := f(context.Background())
		fyne.Do(func() {
			if err != nil {
				dialogkeys.ShowError(err, v.win)
			}
			v.ReloadThen(func() {
				if err == nil && ok != nil {
					ok()
				}
				if v.OnEdited != nil {
					v.OnEdited()
				}
			})
		})
	}()
}

// Current returns runs as the history now names them: a run renamed since
// it was loaded (Results, the Run view and Compare hold copies) comes back
// as a copy with its current name, others as they are. A run not in the
// list (not saved) keeps its name.
func (v *View) Current(runs []*rundoc.Run) []*rundoc.Run {
	out := make([]*rundoc.Run, len(runs))
	for i, r := range runs {
		out[i] = r
		for _, e := range v.all {
			if r != nil && e.Run.UUID == r.UUID && e.Run.Name != r.Name {
				c := *r
				c.Name = e.Run.Name
				out[i] = &c
			}
		}
	}
	return out
}

func (v *View) settle() {
	if v.settled != nil {
		v.settled()
	}
}

// runLabel names a run in a sentence: its name, else its model, else
// "Run" and the start of its UUID.
func runLabel(r *rundoc.Run) string {
	switch {
	case r == nil:
		return "the run"
	case r.Name != "":
		return r.Name
	case r.Server.Model != "":
		return r.Server.Model
	}
	id := r.UUID
	if len(id) > 8 {
		id = id[:8]
	}
	return "Run " + id
}

// ImportDialog asks for a file and imports it.
// Only run files are listed (JSON exports, measurements CSVs): the others
// a folder holds (reports, charts) cannot be imported.
func (v *View) ImportDialog() {
	dialogkeys.ShowFileOpen(v.win, report.RunFileExtensions, func(path string) { v.Import(path, nil) })
}

// showImported selects an imported run in the list and scrolls to it, and
// says where it is: the list sorts by each run's own date, so a run from
// last month lands among last month's runs, not at the top (issue 41
// item 5), and a filter may hide it.
func (v *View) showImported(r *rundoc.Run) string {
	if r == nil {
		return "in the list"
	}
	i := slices.IndexFunc(v.shown, func(e Entry) bool { return e.Run.UUID == r.UUID })
	if i < 0 {
		return "but the filter above the list hides it: clear the filter to see it"
	}
	if !slices.Contains(v.selected, r.UUID) {
		v.Toggle(r.UUID)
	}
	v.table.ScrollTo(widget.TableCellID{Row: i, Col: 0})
	where := "selected in the list"
	if i > 0 {
		where += fmt.Sprintf(" at row %d", i+1)
	}
	if !r.CreatedAt.IsZero() {
		where += ", which sorts by each run's own date (" + r.CreatedAt.Local().Format("2006-01-02") + ")"
	}
	return where
}

// Import imports a file off the UI goroutine; done (may be nil) gets the
// run or the error on the Fyne goroutine after the list is reloaded.
func (v *View) Import(path string, done func(*rundoc.Run, error)) {
	go func() {
		r, err := ImportFile(context.Background(), v.src, path)
		runs, lerr := v.src.List(context.Background())
		fyne.Do(func() {
			defer v.settle()
			if lerr == nil {
				v.all = runs
				v.applyFilter()
			}
			if err == nil && lerr != nil {
				err = lerr
			}
			switch {
			case done != nil:
				done(r, err)
			case errors.Is(err, ErrAlreadyInHistory):
				dialogkeys.ShowInformation("Already in the history",
					fmt.Sprintf("The run in %s (%s) is already in the history, so nothing was imported.", filepath.Base(path), runLabel(r)), v.win)
			case err != nil:
				dialogkeys.ShowError(err, v.win)
			default:
				dialogkeys.ShowInformation("Run imported",
					fmt.Sprintf("%s from %s is in the history now, %s.", runLabel(r), filepath.Base(path), v.showImported(r)), v.win)
			}
		})
	}()
}
