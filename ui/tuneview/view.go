// Package tuneview is the app's Tune view: pick the launch flags to vary
// and what "faster" means, see how many variants and how long before
// starting, watch the sweep, then read the verdict, the table and the chart
// of the objective per variant, apply the winner to the Launch form and
// export the sweep. It is a front end of engine/tune, like
// `rigbench-cli tune`; the app supplies the target through Backend.
package tuneview

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/job"
	"github.com/rigbench/rigbench/ui/progress"
)

// Backend is what the view asks of the app. Base and Runner are called on
// the Fyne goroutine.
type Backend struct {
	// Base returns the Launch form's configuration and, when Tune cannot
	// run on the chosen target, why ("" when it can).
	Base func() (cfg vllm.LaunchConfig, unavailable string)
	// Runner builds a sweep's runner for the chosen target (demo or
	// launch), with the history's recorder and resume lookup set.
	Runner func(spec tune.Spec) (*tune.Runner, error)
	// Target words where the variants run ("on the simulated server"),
	// shown with the estimate (nil: nothing).
	Target func() string
	// GPUs is the number of GPUs detected: --tensor-parallel-size is
	// offered only with more than one.
	GPUs func() int
	// OnApply puts the winner's flag changes in the Launch form.
	OnApply func(changes []vllm.FlagValue)
	// OnExport exports the sweep document (nil: the Export button hides).
	OnExport func(*tune.Doc)
	// OnImport opens an exported sweep document and shows it with Show
	// (nil: the Open button hides).
	OnImport func()
	// OnFinished is told when a sweep ends (the app reloads History).
	OnFinished func(*tune.Result, error)
	// LastSweep returns the sweep started last with this history (nil when
	// none), judged from the variants the history holds, and whether all
	// were found: the view reopens on it, with its verdict when complete,
	// with Resume when RigBench crashed or closed during it.
	LastSweep func() (spec *tune.Spec, res *tune.Result, complete bool)
}

// View is the Tune view. Its methods must be called on the Fyne goroutine.
type View struct {
	b Backend

	unavailable                          *widget.Label
	flag                                 *widget.Select
	values                               *widget.Entry
	dimsBox                              *fyne.Container
	mode                                 *widget.RadioGroup
	contexts, concurrency, dur           *widget.Entry
	objective, objArg, constraint        *widget.Entry
	summary, status, verdict             *widget.Label
	progress                             *progress.Bar
	addBtn, startBtn, stopBtn, resumeBtn *widget.Button
	applyBtn, exportBtn, openBtn         *widget.Button
	table                                *widget.Table
	chart                                *fyne.Container
	// left holds the form and results the chart and the table: each is
	// laid out again when what it holds changes size, or the chart was
	// drawn over the table and the estimate over the Constraint row.
	left, results *fyne.Container
	content       fyne.CanvasObject

	dims []tune.Dimension
	spec *tune.Spec // the spec of the last sweep started (Resume reuses it)
	doc  *tune.Doc  // the sweep shown
	rows [][]string

	// job is the sweep in progress, if any.
	job job.Job
}

// Mode labels of the radio group.
const (
	gridLabel = "Grid (every combination)"
	oneLabel  = "One at a time (from your flags)"
)

// New builds the view.
func New(b Backend) *View {
	v := &View{b: b}
	v.buildInputs()
	v.buildControls()
	v.buildResults()
	v.content = v.layout()
	v.Refresh()
	if b.LastSweep != nil {
		if s, res, complete := b.LastSweep(); s != nil {
			v.reopen(s, res, complete)
		}
	}
	return v
}

// reopen shows the last sweep as RigBench left it: its form, and its
// verdict when every variant is in the history, else Resume.
func (v *View) reopen(s *tune.Spec, res *tune.Result, complete bool) {
	v.fill(*s)
	v.spec = s
	if complete && res != nil {
		v.Show(res.Document())
		v.status.SetText(fmt.Sprintf("Sweep %s: all %d variants are in History (tag %s). Start runs the form again as a new sweep.",
			s.ID, len(res.Variants), tune.Tag(s.ID)))
		return
	}
	v.resumeBtn.Enable()
	v.status.SetText(fmt.Sprintf("Sweep %s (%s) stopped before its %d variants were measured: Resume measures the rest; those in History are kept.",
		s.ID, dimsText(s.Dimensions), len(s.Variants())))
}

// fill puts a sweep's inputs back in the form.
func (v *View) fill(s tune.Spec) {
	v.dims = append([]tune.Dimension(nil), s.Dimensions...)
	v.SetMode(s.Mode)
	var ctxs, conc []string
	for _, c := range s.Plan.Contexts {
		ctxs = append(ctxs, rundoc.ContextLabel(c))
	}
	for _, n := range s.Plan.Concurrency {
		conc = append(conc, fmt.Sprint(n))
	}
	window := rundoc.WindowAuto
	if s.Plan.Window != rundoc.WindowAuto {
		window = (time.Duration(s.Plan.DurationS * float64(time.Second))).String()
	}
	constraint := ""
	if len(s.Constraints) > 0 {
		constraint = s.Constraints[0].String()
	}
	v.SetWorkload(strings.Join(ctxs, ","), strings.Join(conc, ","), window)
	v.SetObjective(s.Objective.String(), constraint)
	v.showDims()
}

// buildInputs makes the form's widgets: what to vary, how, the workload,
// the objective and the constraint.
func (v *View) buildInputs() {
	v.unavailable = widget.NewLabel("")
	v.unavailable.Importance = widget.WarningImportance
	v.unavailable.Wrapping = fyne.TextWrapWord
	v.unavailable.Hide()

	v.flag = widget.NewSelect(nil, func(name string) {
		v.values.SetText(strings.Join(displayValues(name, vllm.Suggestions(name)), ","))
	})
	v.flag.PlaceHolder = "flag to vary"
	v.values = widget.NewEntry()
	v.values.SetPlaceHolder("values, e.g. auto,fp8")
	v.addBtn = widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), func() {
		if err := v.AddDimension(v.flag.Selected, v.values.Text); err != nil {
			v.status.SetText(err.Error())
		}
	})
	v.dimsBox = container.NewVBox()
	v.mode = widget.NewRadioGroup([]string{gridLabel, oneLabel}, func(string) { v.edited() })
	v.mode.SetSelected(gridLabel)
	v.mode.Required = true
	v.contexts = entry("1K,16K", v.edited)
	v.concurrency = entry("8,32", v.edited)
	// The CLI's defaults: windows that stop once total tok/s is known
	// within ±1%, and the objective at the largest cell.
	v.dur = entry(rundoc.WindowAuto, v.edited)
	v.objective = entry("total-tok-s", v.edited)
	v.objective.SetPlaceHolder(strings.Join(tune.ObjectiveNames, ", "))
	v.constraint = entry("", v.edited)
	v.constraint.SetPlaceHolder("optional, e.g. ttft_p90<=2s")
	v.summary = widget.NewLabel("")
	v.summary.Wrapping = fyne.TextWrapWord

}

// buildControls makes the buttons, the progress, status and verdict.
func (v *View) buildControls() {
	b := v.b
	v.status = widget.NewLabel("Add a flag to vary, then Start.")
	v.status.Wrapping = fyne.TextWrapWord
	v.progress = progress.NewBar()
	v.verdict = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.verdict.Wrapping = fyne.TextWrapWord
	v.startBtn = widget.NewButtonWithIcon("Start sweep", theme.MediaPlayIcon(), v.Start)
	v.startBtn.Importance = widget.HighImportance
	v.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), v.Stop)
	v.stopBtn.Disable()
	v.resumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaReplayIcon(), v.Resume)
	v.resumeBtn.Disable()
	v.applyBtn = widget.NewButtonWithIcon("Apply to Launch", theme.ConfirmIcon(), v.Apply)
	v.applyBtn.Disable()
	v.exportBtn = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), func() {
		if v.b.OnExport != nil && v.doc != nil {
			v.b.OnExport(v.doc)
		}
	})
	v.exportBtn.Disable()
	if b.OnExport == nil {
		v.exportBtn.Hide()
	}
	v.openBtn = widget.NewButtonWithIcon("Open sweep…", theme.FolderOpenIcon(), func() {
		if v.b.OnImport != nil {
			v.b.OnImport()
		}
	})
	if b.OnImport == nil {
		v.openBtn.Hide()
	}
}

// buildResults makes the table of variants and the chart's box.
func (v *View) buildResults() {
	v.table = widget.NewTable(
		func() (int, int) {
			if len(v.rows) == 0 {
				return 0, 0
			}
			return len(v.rows), len(v.rows[0])
		},
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.SetText(v.rows[id.Row][id.Col])
			l.TextStyle.Bold = id.Row == 0
		})
	v.chart = container.NewVBox()

}

// layout places the form on the left and the controls and results on the
// right.
func (v *View) layout() fyne.CanvasObject {
	form := widget.NewForm(
		// The values on their own row: beside the flag's drop-down they
		// had a few characters' room at 900 px.
		widget.NewFormItem("Vary", container.NewBorder(nil, nil, nil, v.addBtn, v.flag)),
		widget.NewFormItem("Values", v.values),
		widget.NewFormItem("", v.dimsBox),
		widget.NewFormItem("Variants", v.mode),
		widget.NewFormItem("Contexts", v.contexts),
		widget.NewFormItem("Concurrency", v.concurrency),
		widget.NewFormItem("Window", v.dur),
		widget.NewFormItem("Objective", v.objective),
		widget.NewFormItem("Constraint", v.constraint),
	)
	title := widget.NewLabelWithStyle("Tune: which launch flags make this card fastest", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	v.left = container.NewVBox(title, v.unavailable, form, v.summary)
	controls := container.NewVBox(
		// Two rows: in one, the six buttons were wider than the right
		// pane of a 900 px window, which then scrolled sideways.
		container.NewHBox(v.startBtn, v.stopBtn, v.resumeBtn),
		container.NewHBox(v.applyBtn, v.exportBtn, v.openBtn),
		v.progress, v.status, v.verdict,
	)
	// The table takes the width there is and at least room for a few
	// variants' rows.
	tall := canvas.NewRectangle(color.Transparent)
	tall.SetMinSize(fyne.NewSize(10, 240))
	tableBox := container.NewStack(tall, v.table)
	v.results = container.NewVBox(v.chart, tableBox)
	right := container.NewBorder(controls, nil, nil, nil, container.NewVScroll(v.results))
	split := container.NewHSplit(container.NewVScroll(v.left), right)
	split.Offset = 0.36
	return split
}

// dimsText names what a sweep varies ("--kv-cache-dtype auto, fp8 × …").
func dimsText(ds []tune.Dimension) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.Flag+" "+strings.Join(displayValues(d.Flag, d.Values), ", "))
	}
	return strings.Join(parts, " × ")
}

func entry(text string, changed func()) *widget.Entry {
	e := widget.NewEntry()
	e.SetText(text)
	e.OnChanged = func(string) { changed() }
	return e
}

// displayValues shows booleans as on/off.
func displayValues(name string, vals []string) []string {
	f, _, ok := vllm.Lookup(name)
	if !ok || f.Type != vllm.KindBool {
		return vals
	}
	out := make([]string, len(vals))
	for i, x := range vals {
		out[i] = map[string]string{"true": "on", "false": "off"}[x]
	}
	return out
}

// Content is the view's root.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Refresh reads the target and the flag list again (the app calls it when
// the target or the detected GPUs change).
func (v *View) Refresh() {
	var opts []string
	gpus := 1
	if v.b.GPUs != nil {
		gpus = v.b.GPUs()
	}
	for _, f := range vllm.Catalog() {
		if !vllm.Tunable(f.Name) || len(vllm.Suggestions(f.Name)) == 0 {
			continue
		}
		if f.Name == "--tensor-parallel-size" && gpus < 2 {
			continue
		}
		opts = append(opts, f.Name)
	}
	v.flag.SetOptions(opts)
	v.edited()
}

// AddDimension adds a flag and its values ("auto,fp8"; on/off for
// switches), replacing the flag's earlier values.
func (v *View) AddDimension(flag, values string) error {
	if flag == "" {
		return errors.New("pick a flag to vary first")
	}
	d, err := tune.ParseDimension(flag + "=" + values)
	if err != nil {
		return err
	}
	for i := range v.dims {
		if v.dims[i].Flag == d.Flag {
			v.dims[i] = d
			v.showDims()
			return nil
		}
	}
	v.dims = append(v.dims, d)
	v.showDims()
	return nil
}

func (v *View) showDims() {
	v.dimsBox.RemoveAll()
	for i, d := range v.dims {
		i := i
		label := widget.NewLabel(d.Flag + " " + strings.Join(displayValues(d.Flag, d.Values), ", "))
		rm := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
			v.dims = append(v.dims[:i:i], v.dims[i+1:]...)
			v.showDims()
		})
		v.dimsBox.Add(container.NewBorder(nil, nil, nil, rm, label))
	}
	v.edited()
	v.left.Refresh()
}

// SetMode picks grid or one-at-a-time.
func (v *View) SetMode(m tune.Mode) {
	if m == tune.OneAtATime {
		v.mode.SetSelected(oneLabel)
	} else {
		v.mode.SetSelected(gridLabel)
	}
}

// SetWorkload sets the cells and the window ("1K,16K", "8,32", "30s").
func (v *View) SetWorkload(contexts, concurrency, window string) {
	v.contexts.SetText(contexts)
	v.concurrency.SetText(concurrency)
	v.dur.SetText(window)
}

// Workload is the form's cells and window, as SetWorkload takes them.
func (v *View) Workload() (contexts, concurrency, window string) {
	return v.contexts.Text, v.concurrency.Text, v.dur.Text
}

// Objective is the form's objective and constraint.
func (v *View) Objective() (objective, constraint string) { return v.objective.Text, v.constraint.Text }

// SetObjective sets the objective and the constraint (as the CLI takes
// them: "total-tok-s@16Kx32", "ttft_p90<=2s" or "").
func (v *View) SetObjective(objective, constraint string) {
	v.objective.SetText(objective)
	v.constraint.SetText(constraint)
}

// Summary is the line under the form: the variant count and the estimated
// wall time, or what is wrong with the inputs.
func (v *View) Summary() string { return v.summary.Text }

// Status is the progress or outcome line.
func (v *View) Status() string { return v.status.Text }

// Verdict is the verdict shown, "" before a sweep ends.
func (v *View) Verdict() string { return v.verdict.Text }

// Doc is the sweep shown (nil before one ends).
func (v *View) Doc() *tune.Doc { return v.doc }

// Rows are the table's rows, the header first.
func (v *View) Rows() [][]string { return v.rows }

// CanApply reports whether Apply to Launch is enabled.
func (v *View) CanApply() bool { return !v.applyBtn.Disabled() }

// Running reports whether a sweep is going.
func (v *View) Running() bool { return v.job.Running() }

// Done is closed when the sweep started last has ended and its outcome is
// on screen (a closed channel when none runs).
func (v *View) Done() <-chan struct{} { return v.job.Done() }

// buildSpec reads the form into a spec; the error says what to fix.
func (v *View) buildSpec() (tune.Spec, string, error) {
	base, why := vllm.LaunchConfig{}, ""
	if v.b.Base != nil {
		base, why = v.b.Base()
	}
	if why != "" {
		return tune.Spec{}, why, errors.New(why)
	}
	// tune.Workload is the CLI's reader of the same fields.
	plan, err := tune.Workload(rundoc.PlanInput{Contexts: v.contexts.Text, Concurrency: v.concurrency.Text, Window: v.dur.Text})
	var fe *rundoc.FieldError
	if errors.As(err, &fe) {
		label := map[rundoc.Field]string{rundoc.FieldContexts: "Contexts", rundoc.FieldConcurrency: "Concurrency", rundoc.FieldWindow: "Window"}[fe.Field]
		if label == "" {
			label = string(fe.Field)
		}
		return tune.Spec{}, "", errors.New(fe.In(label))
	}
	if err != nil {
		return tune.Spec{}, "", err
	}
	spec := tune.Spec{ID: tune.NewID(), Base: base, Dimensions: append([]tune.Dimension(nil), v.dims...), Mode: tune.Grid, Plan: plan}
	if v.mode.Selected == oneLabel {
		spec.Mode = tune.OneAtATime
	}
	if spec.Objective, err = tune.ParseObjective(v.objective.Text, plan); err != nil {
		return spec, "", err
	}
	if c := strings.TrimSpace(v.constraint.Text); c != "" {
		k, err := tune.ParseConstraint(c)
		if err != nil {
			return spec, "", err
		}
		spec.Constraints = []tune.Constraint{k}
	}
	return spec, "", spec.Validate()
}

// edited recomputes the summary: variants and estimated wall time, or
// what is missing.
func (v *View) edited() {
	if v.summary == nil || v.startBtn == nil {
		return // still building
	}
	spec, why, err := v.buildSpec()
	v.unavailable.SetText(why)
	v.unavailable.Hidden = why == ""
	v.unavailable.Refresh()
	running := v.Running()
	if err != nil {
		if why == "" {
			v.summary.SetText(wordErr(err))
		} else {
			v.summary.SetText("")
		}
		v.startBtn.Disable()
		if !running && v.doc == nil && v.spec == nil {
			v.status.SetText("Add a flag to vary and the cells to measure, then Start.")
		}
		return
	}
	n := len(spec.Variants())
	msg := fmt.Sprintf("%d variants", n)
	if v.b.Runner != nil {
		if r, err := v.b.Runner(spec); err == nil {
			msg += ", about " + rundoc.ShortDuration(r.EstimateSweep())
		}
	}
	if v.b.Target != nil {
		msg += ", " + v.b.Target()
	}
	v.summary.SetText(msg + ".")
	if !running {
		v.startBtn.Enable()
		if v.doc == nil && v.spec == nil {
			v.status.SetText("Ready: Start launches and measures each variant; every one is saved in History.")
		}
	}
}

func wordErr(err error) string {
	if errors.Is(err, tune.ErrNothingToVary) {
		// The engine's sentence, with the app's way to give a flag (the
		// CLI adds its --vary).
		return "Nothing to vary yet: pick a flag under Vary, give its values and press Add."
	}
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Start starts a new sweep of the form's inputs.
func (v *View) Start() {
	spec, _, err := v.buildSpec()
	if err != nil {
		v.status.SetText(wordErr(err))
		return
	}
	v.run(spec, false)
}

// Resume continues the last sweep: variants the history holds finished are
// not measured again.
func (v *View) Resume() {
	if v.spec != nil {
		v.run(*v.spec, true)
	}
}

// Stop cancels the sweep; finished variants are kept.
func (v *View) Stop() {
	v.job.Cancel()
}

func (v *View) run(spec tune.Spec, resume bool) {
	if v.Running() || v.b.Runner == nil {
		return
	}
	r, err := v.b.Runner(spec)
	if err != nil {
		v.status.SetText(wordErr(err))
		return
	}
	if !resume {
		r.History = nil
	}
	v.spec = &spec
	ctx, cancel := context.WithCancel(context.Background())
	done := v.job.Begin(cancel)
	v.startBtn.Disable()
	v.resumeBtn.Disable()
	v.applyBtn.Disable()
	v.stopBtn.Enable()
	v.verdict.SetText("")
	v.clearResults()
	v.progress.SetValue(0)
	v.status.SetText(fmt.Sprintf("Sweep %s: starting %d variants…", spec.ID, len(spec.Variants())))
	r.Progress = func(p tune.Progress) {
		text, frac := progressText(p)
		fyne.Do(func() {
			v.status.SetText(text)
			v.progress.SetValue(frac)
		})
	}
	go func() {
		res, err := r.Run(ctx)
		fyne.DoAndWait(func() {
			v.job.End()
			cancel()
			v.finished(res, err)
			if v.b.OnFinished != nil {
				v.b.OnFinished(res, err)
			}
			close(done)
		})
	}()
}

// progressText is the status line and the bar's fraction of a report:
// variants done plus the share of the current one's cells.
func progressText(p tune.Progress) (string, float64) {
	done := float64(p.Variant - 1)
	var s string
	switch p.Stage {
	case "launching":
		s = fmt.Sprintf("Variant %d of %d (%s): starting the server", p.Variant, p.Variants, p.Label)
	case "measuring":
		s = fmt.Sprintf("Variant %d of %d (%s): cell %s (%d of %d)", p.Variant, p.Variants, p.Label, p.Cell, p.CellIndex, p.Cells)
		if p.Cells > 0 {
			done += float64(p.CellIndex-1) / float64(p.Cells)
		}
	default:
		s = fmt.Sprintf("Variant %d of %d (%s): %s", p.Variant, p.Variants, p.Label, p.Stage)
		done++
	}
	if p.ETA > 0 {
		s += ", about " + rundoc.ShortDuration(p.ETA) + " left"
	}
	return s + ".", done / float64(max(1, p.Variants))
}

// finished shows a sweep's outcome.
func (v *View) finished(res *tune.Result, err error) {
	v.stopBtn.Disable()
	v.edited()
	if res == nil {
		v.status.SetText("The sweep could not start: " + wordErr(err))
		return
	}
	measured, pending := 0, 0
	for _, x := range res.Variants {
		switch x.Status {
		case tune.Measured:
			measured++
		case tune.Cancelled, tune.NotRun:
			pending++
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		v.status.SetText(fmt.Sprintf("Stopped: %d of %d variants measured and kept in History; Resume measures the rest.", measured, len(res.Variants)))
	case err != nil:
		v.status.SetText(fmt.Sprintf("The sweep stopped: %s. %d variants measured; Resume measures the rest.", wordErr(err), measured))
	default:
		v.status.SetText(fmt.Sprintf("Sweep %s done: %d of %d variants measured, each saved in History (tag %s).", res.Spec.ID, measured, len(res.Variants), tune.Tag(res.Spec.ID)))
	}
	v.progress.SetValue(float64(len(res.Variants)-pending) / float64(max(1, len(res.Variants))))
	if pending > 0 {
		v.resumeBtn.Enable()
	}
	v.Show(res.Document())
}

// Show displays a sweep document: verdict, chart and table (after a sweep,
// or one imported from an export).
func (v *View) Show(d *tune.Doc) {
	v.doc = d
	// The verdict marks flags as code for Markdown; a label shows them
	// plainly.
	v.verdict.SetText("Verdict: " + strings.ReplaceAll(d.Verdict, "`", ""))
	header, rows := d.Table()
	v.rows = append([][]string{header}, rows...)
	v.table.Refresh()
	for c := range header {
		w := float32(60)
		for _, r := range v.rows {
			w = max(w, widget.NewLabel(r[c]).MinSize().Width)
		}
		v.table.SetColumnWidth(c, w)
	}
	v.drawChart(d)
	if _, ok := d.BestChanges(); ok {
		v.applyBtn.Enable()
	} else {
		v.applyBtn.Disable()
	}
	v.exportBtn.Enable()
}

// clearResults takes the last sweep's chart and table off the screen when
// a new one starts: left there, they read as the new sweep's.
func (v *View) clearResults() {
	v.doc, v.rows = nil, nil
	v.chart.RemoveAll()
	v.table.Refresh()
	v.results.Refresh()
	v.exportBtn.Disable()
}

// Chart is the chart's rows as text, the title first: each variant's
// label, then its score and note (tests read it).
func (v *View) Chart() []string {
	var out []string
	for _, o := range v.chart.Objects {
		var texts []string
		collectText(o, &texts)
		out = append(out, strings.Join(texts, " | "))
	}
	return out
}

// FormBox is the box of the title, the form and the estimate under it
// (tests check their layout).
func (v *View) FormBox() *fyne.Container { return v.left }

// Results is the box of the chart and the table (tests check their
// layout).
func (v *View) Results() *fyne.Container { return v.results }

func collectText(o fyne.CanvasObject, out *[]string) {
	switch w := o.(type) {
	case *widget.Label:
		if w.Text != "" {
			*out = append(*out, w.Text)
		}
	case *fyne.Container:
		for _, c := range w.Objects {
			collectText(c, out)
		}
	}
}

// Apply puts the winner's flags in the Launch form.
func (v *View) Apply() {
	if v.doc == nil || v.b.OnApply == nil {
		return
	}
	if ch, ok := v.doc.BestChanges(); ok {
		v.b.OnApply(ch)
		v.status.SetText("Applied " + tune.FlagsLabel(ch) + " to the Launch form.")
	}
}

// drawChart draws the objective per variant as bars with their ± as a
// whisker: the base outlined and labelled, the winner and its ties in the
// success colour, each score with its note. Everything comes from
// d.Bars(), the computation the verdict and the table read too.
func (v *View) drawChart(d *tune.Doc) {
	v.chart.RemoveAll()
	bars := d.Bars()
	o, _ := tune.ParseObjective(d.Objective, d.Plan)
	v.chart.Add(widget.NewLabelWithStyle(o.Describe()+" per variant", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	top := 0.0
	for _, b := range bars {
		top = max(top, b.Value+b.CI95)
	}
	const maxBar = 240
	for _, b := range bars {
		name := b.Label
		if b.Base {
			name = "base: " + b.Label
		}
		// Wrapped, never cut: two variants of a grid share their first
		// flags, and cut labels read alike.
		nameLabel := widget.NewLabel(name)
		nameLabel.Wrapping = fyne.TextWrapWord
		text := b.Score
		if b.Note != "" {
			text += " · " + b.Note
		}
		score := widget.NewLabel(text)
		score.Wrapping = fyne.TextWrapWord
		var bar fyne.CanvasObject = layout.NewSpacer()
		if b.OK {
			bar = v.barShape(b, top, maxBar)
		}
		row := container.NewBorder(nil, nil, container.NewGridWrap(fyne.NewSize(maxBar+8, 36), bar), nil, score)
		// The label on its own line above its bar: side by side, two
		// equal columns needed twice the bar's width.
		v.chart.Add(container.NewVBox(nameLabel, row))
	}
	v.chart.Refresh()
	v.results.Refresh()
}

// barShape is one bar and its ± whisker, scaled so the longest bar with
// its whisker is width wide.
func (v *View) barShape(b tune.Bar, top float64, width float32) fyne.CanvasObject {
	scale := float32(0)
	if top > 0 {
		scale = width / float32(top)
	}
	fill := theme.Color(theme.ColorNamePrimary)
	if b.Best || b.Tie {
		fill = theme.Color(theme.ColorNameSuccess)
	}
	r := canvas.NewRectangle(fill)
	if b.Base {
		r.StrokeColor, r.StrokeWidth = theme.Color(theme.ColorNameForeground), 2
	}
	w := max(2, float32(b.Value)*scale)
	r.Resize(fyne.NewSize(w, 18))
	r.Move(fyne.NewPos(0, 9))
	objs := []fyne.CanvasObject{r}
	if b.CI95 > 0 {
		lo, hi := float32(b.Value-b.CI95)*scale, float32(b.Value+b.CI95)*scale
		whisker := canvas.NewLine(theme.Color(theme.ColorNameForeground))
		whisker.StrokeWidth = 2
		whisker.Position1, whisker.Position2 = fyne.NewPos(lo, 18), fyne.NewPos(hi, 18)
		objs = append(objs, whisker)
	}
	return container.NewWithoutLayout(objs...)
}
