package runview

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
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/job"
	"github.com/rigbench/rigbench/ui/matrix"
	"github.com/rigbench/rigbench/ui/progress"
	"github.com/rigbench/rigbench/ui/wording"
)

// RepaintInterval is how often the view applies runner events: four
// repaints a second is live to the eye and costs nothing at 128 streams.
const RepaintInterval = 250 * time.Millisecond

// StartFunc runs one benchmark with plan, sending events to obs, and
// returns the finished run document. It must honour ctx: cancelling it is
// how the Cancel button and closing the window stop a run.
type StartFunc func(ctx context.Context, plan rundoc.Plan, obs rundoc.Observer) (*rundoc.Run, error)

// View is the Run view. Its methods must be called on the Fyne goroutine.
type View struct {
	start StartFunc
	form  *planForm

	planErr, estimate, status, detail, pct, eta *widget.Label
	liveTok, simulated, unsaved                 *widget.Label
	target, scaleNote                           *widget.Label
	mxScroll                                    *container.Scroll
	startBtn, cancelBtn, exportBtn              *widget.Button
	progress                                    *progress.Bar
	mx                                          *matrix.Matrix
	power, clock                                *sparkline
	telemetry                                   *fyne.Container
	content                                     fyne.CanvasObject

	facts   session.Facts
	prefill []rundoc.Cell // the last run's prefill cells, for the estimate
	// preview is the grid shown when the run started: a run that fails
	// before the server is known has no plan of its own to draw.
	preview *rundoc.Run
	// total is the number of cells of the run in progress (0 until the
	// runner has planned them).
	total int

	// job is the run in progress, if any.
	job  job.Job
	last *rundoc.Run

	// OnFinished, when set, is called on the Fyne goroutine after each run
	// with the run document (nil when the run could not start) and error.
	OnFinished func(*rundoc.Run, error)
	// OnPlanChanged, when set, is called after each valid edit of the plan
	// (the app stores the plan in its preferences).
	OnPlanChanged func(rundoc.Plan)
	// Saved, when set, says whether a finished run is in the history; the
	// outcome of one that is not says so and offers Export, since it is
	// gone once the app closes. Nil means every run is saved.
	Saved func(*rundoc.Run) bool
	// OnExport, when set, exports a run that was not saved (the Export
	// button beside the outcome).
	OnExport func(*rundoc.Run)
}

// New builds the view. start is called on a goroutine of its own.
func New(start StartFunc) *View {
	v := &View{start: start}
	v.planErr = widget.NewLabel("")
	v.planErr.Importance = widget.DangerImportance
	v.planErr.Wrapping = fyne.TextWrapWord
	v.estimate = widget.NewLabel("")
	v.estimate.Wrapping = fyne.TextWrapWord
	// One line, cut to the space there is: a long message must not push
	// the plan and the grid off the window. The whole text, when there is
	// more to say, wraps on the detail line below.
	v.status = widget.NewLabel("Ready.")
	v.status.Truncation = fyne.TextTruncateEllipsis
	v.detail = widget.NewLabel("")
	v.detail.Wrapping = fyne.TextWrapWord
	v.detail.Hide()
	v.pct = widget.NewLabel("")
	v.eta = widget.NewLabel("")
	v.liveTok = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.simulated = widget.NewLabel("")
	v.simulated.Importance = widget.WarningImportance
	v.simulated.Hide()
	v.target = widget.NewLabel("")
	v.target.Truncation = fyne.TextTruncateEllipsis
	v.target.Hide()
	// While a run goes, the colours compare the cells measured so far: the
	// fastest yet is yellow, so a faster cell arriving shifts the others.
	v.scaleNote = widget.NewLabel("Colours compare the cells measured so far; they settle when the run ends.")
	v.scaleNote.TextStyle.Italic = true
	v.scaleNote.Truncation = fyne.TextTruncateEllipsis
	v.scaleNote.Hide()
	v.unsaved = widget.NewLabel("")
	v.unsaved.Importance = widget.WarningImportance
	v.unsaved.Wrapping = fyne.TextWrapWord
	v.unsaved.Hide()
	// The percentage is a label beside the bar, not text on it: the bar's
	// own text is drawn in the colour meant for the filled part, and is
	// barely legible over the pale unfilled part in the light theme.
	v.progress = progress.NewBar()
	v.setProgress(0)
	v.startBtn = widget.NewButtonWithIcon("Start run", theme.MediaPlayIcon(), v.Start)
	v.startBtn.Importance = widget.HighImportance
	v.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.MediaStopIcon(), v.Cancel)
	v.cancelBtn.Disable()
	v.exportBtn = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), func() {
		if v.OnExport != nil && v.last != nil {
			v.OnExport(v.last)
		}
	})
	v.exportBtn.Hide()
	v.mx = matrix.New()
	v.power, v.clock = newSparkline(), newSparkline()
	v.telemetry = container.NewHBox(widget.NewLabel("GPU power"), v.power.raster, widget.NewLabel("SM clock"), v.clock.raster)
	v.telemetry.Hide()
	v.form = newPlanForm(v.planEdited)

	left := container.NewVBox(
		widget.NewLabelWithStyle("Plan", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		v.form.form(), v.planErr, v.estimate,
	)
	controls := container.NewVBox(
		v.unsaved,
		v.simulated,
		v.target,
		container.NewBorder(nil, nil, container.NewHBox(v.startBtn, v.cancelBtn), v.exportBtn, v.status),
		v.detail,
		container.NewBorder(nil, nil, nil, container.NewHBox(fixedWidth(v.pct, "100%"), v.eta), v.progress),
		container.NewHBox(v.liveTok, v.telemetry),
		v.scaleNote,
	)
	v.mxScroll = container.NewScroll(v.mx)
	right := container.NewBorder(controls, nil, nil, nil, v.mxScroll)
	split := container.NewHSplit(container.NewVScroll(left), right)
	// The plan form needs about a quarter of a 1280-unit window; the
	// default grid (N up to 128, nine columns) needs the rest.
	split.Offset = 0.24
	v.content = split
	v.planEdited()
	return v
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Matrix is the view's decode matrix (preview before a run, live during
// one, the result after).
func (v *View) Matrix() *matrix.Matrix { return v.mx }

// Status is the one-line state shown beside the buttons.
func (v *View) Status() string { return v.status.Text }

// Detail is the line under the status: the full reason a run stopped or
// could not start, "" when there is none.
func (v *View) Detail() string { return v.detail.Text }

// Progress is the part of the run's cells done, 0 to 1.
func (v *View) Progress() float64 { return v.progress.Value }

// Estimate is the plan's estimated duration as shown under the plan, ""
// while the plan is not valid.
func (v *View) Estimate() string { return v.estimate.Text }

// CanExport reports whether the Export button for an unsaved run shows.
func (v *View) CanExport() bool { return v.exportBtn.Visible() }

// SetUnsaved shows why runs are not being saved to the history at the top
// of the view ("" hides it): the app falls back to a session-only list
// when the history cannot be opened, and a user who only looks at the
// Run view must not find out when the app closes.
func (v *View) SetUnsaved(why string) {
	v.unsaved.SetText(why)
	if why == "" {
		v.unsaved.Hide()
	} else {
		v.unsaved.Show()
	}
}

// Unsaved is the warning SetUnsaved shows, "" when runs are saved.
func (v *View) Unsaved() string { return v.unsaved.Text }

// SetFacts tells the plan check the server's max_model_len and KV
// capacity (0 = unknown), from the launch readiness or a previous run.
func (v *View) SetFacts(f session.Facts) {
	v.facts = f
	v.planEdited()
}

// SetTarget names what runs will benchmark ("" hides the line), so that
// an endpoint's URL is on screen where the run starts.
func (v *View) SetTarget(s string) {
	v.target.SetText(s)
	if s == "" {
		v.target.Hide()
	} else {
		v.target.Show()
	}
}

// Target is the target line ("" when hidden).
func (v *View) Target() string {
	if v.target.Visible() {
		return v.target.Text
	}
	return ""
}

// MatrixFits reports whether the grid is shown whole, without scrolling
// sideways, at the view's current size.
func (v *View) MatrixFits() bool { return v.mx.MinSize().Width <= v.mxScroll.Size().Width }

// MatrixRoom (tests) describes the grid's room: the scroller's width.
func (v *View) MatrixRoom() string { return fmt.Sprintf("room %.0f", v.mxScroll.Size().Width) }

// Facts are the server facts the plan check uses now.
func (v *View) Facts() session.Facts { return v.facts }

// SetSimulated shows or hides the banner saying runs use the simulator.
func (v *View) SetSimulated(sim bool) {
	if sim {
		v.simulated.SetText("Demo mode: runs use RigBench's simulated server, and are labelled simulated.")
		v.simulated.Show()
	} else {
		v.simulated.Hide()
	}
}

// Plan returns the plan in the editor, or the reason it is not valid.
func (v *View) Plan() (rundoc.Plan, error) { return v.form.plan() }

// SetPlan fills the editor.
func (v *View) SetPlan(p rundoc.Plan) { v.form.set(p) }

// SetPlanText sets the editor's fields from text, as a user would type it;
// empty strings keep a field. Tests and the screenshot tour use it.
func (v *View) SetPlanText(contexts, concurrency, prefill, seconds, maxOutput string) {
	for _, kv := range []struct {
		e *widget.Entry
		s string
	}{{v.form.contexts, contexts}, {v.form.concurrency, concurrency}, {v.form.prefill, prefill}, {v.form.seconds, seconds}, {v.form.maxOutput, maxOutput}} {
		if kv.s != "" {
			kv.e.SetText(kv.s)
		}
	}
}

// Running reports whether a run is in progress.
func (v *View) Running() bool { return v.job.Running() }

// Done returns a channel closed when the current run's goroutine has
// returned (an already closed one when nothing runs).
func (v *View) Done() <-chan struct{} { return v.job.Done() }

func (v *View) planEdited() {
	if v.Running() {
		return
	}
	p, err := v.form.plan()
	if err != nil {
		v.planErr.SetText(err.Error())
		v.planErr.Show()
		v.startBtn.Disable()
		// The last valid plan's estimate would read as this one's.
		v.estimate.SetText("")
		v.estimate.Hide()
		return
	}
	v.planErr.SetText("")
	v.planErr.Hide()
	v.startBtn.Enable()
	preview := session.Predict(p, v.facts)
	d, runnable := session.Estimate(preview, v.facts, v.prefill)
	var est string
	if v.facts.KVCapacity > 0 || p.KVCapacityOverride > 0 {
		total := len(p.Contexts) * len(p.Concurrency)
		if runnable == total {
			est = fmt.Sprintf("Estimated duration: about %s. All %d decode cells will run.", FormatDuration(d), total)
		} else {
			est = fmt.Sprintf("Estimated duration: about %s. %d of %d decode cells will run; the rest are predicted over capacity or too long.",
				FormatDuration(d), runnable, total)
		}
	} else {
		// Every cell is counted as if it fits, so this is the most it takes.
		est = fmt.Sprintf("Estimated duration: up to about %s. The server's KV capacity and maximum length are unknown until it is contacted: cells over capacity are found at run time.", FormatDuration(d))
	}
	v.estimate.SetText(est)
	v.estimate.Show()
	v.showPreview(preview)
	if v.OnPlanChanged != nil {
		v.OnPlanChanged(p)
	}
}

// showPreview draws the plan's grid with the cells that will run saying so.
func (v *View) showPreview(preview *rundoc.Run) {
	v.mx.SetRunning(0, 0, false)
	v.mx.SetPendingText("will run")
	v.mx.SetRun(preview)
}

// Start begins a run with the plan in the editor. It does nothing while a
// run is in progress or when the plan is not valid.
func (v *View) Start() {
	if v.Running() || v.start == nil {
		return
	}
	p, err := v.form.plan()
	if err != nil {
		v.planErr.SetText(err.Error())
		v.planErr.Show()
		return
	}
	v.StartPlan(p)
}

// StartPlan begins a run of p, which need not be the editor's (a resumed
// run keeps its own plan). It does nothing while a run is in progress.
func (v *View) StartPlan(p rundoc.Plan) {
	if v.Running() || v.start == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	obs := &live{}
	done := v.job.Begin(cancel)
	v.startBtn.Disable()
	v.cancelBtn.Enable()
	v.setStatus("Starting…", "")
	v.exportBtn.Hide()
	v.total = 0
	v.setProgress(0)
	v.eta.SetText("")
	v.liveTok.SetText("")
	v.scaleNote.Show()
	v.preview = session.Predict(p, v.facts)
	v.mx.SetPendingText("")
	v.mx.SetRun(v.preview)

	tick := time.NewTicker(RepaintInterval)
	painterDone := make(chan struct{})
	go func() {
		defer close(painterDone)
		for {
			select {
			case <-done:
				tick.Stop()
				return
			case <-tick.C:
				if s, ok := obs.take(); ok {
					fyne.Do(func() { v.apply(s) })
				}
			}
		}
	}()
	go func() {
		run, err := v.start(ctx, p, obs)
		close(done)
		// The last repaint comes before the outcome, never after it.
		<-painterDone
		fyne.Do(func() { v.finish(obs, run, err) })
	}()
}

// Cancel stops the run in progress; what was measured is kept.
func (v *View) Cancel() {
	if v.job.Running() {
		v.setStatus("Cancelling…", "")
		v.cancelBtn.Disable()
		v.job.Cancel()
	}
}

// apply repaints from one snapshot.
func (v *View) apply(s snapshot) {
	if !s.started {
		if s.message != "" {
			v.setStatus(s.message, "")
		}
		return
	}
	v.mx.SetRunning(s.current[0], s.current[1], s.measuring)
	v.mx.SetRun(&s.run)
	if s.total > 0 {
		v.total = s.total
		v.setProgress(float64(s.index) / float64(s.total))
		line := fmt.Sprintf("Cell %d of %d", min(s.index+1, s.total), s.total)
		if s.message != "" {
			line += " · " + s.message
		}
		v.setStatus(line, "")
	} else if s.message != "" {
		v.setStatus(s.message, "")
	}
	if s.eta > 0 {
		v.eta.SetText("ETA " + FormatDuration(s.eta))
	}
	if s.measuring && s.liveTokS > 0 {
		v.liveTok.SetText(fmt.Sprintf("%.1f tok/s now", s.liveTokS))
	}
	if len(s.power) > 1 {
		v.power.set(s.power)
		v.clock.set(s.clock)
		v.telemetry.Show()
	}
}

// finish shows the outcome and hands the run to OnFinished.
func (v *View) finish(obs *live, run *rundoc.Run, err error) {
	if s, ok := obs.take(); ok {
		v.apply(s)
	}
	v.job.End()
	v.startBtn.Enable()
	v.cancelBtn.Disable()
	v.eta.SetText("")
	v.liveTok.SetText("")
	v.scaleNote.Hide()
	v.mx.SetRunning(0, 0, false)
	switch {
	case run != nil:
		v.last = run
		shown := run
		if ctxs, _ := run.DecodeAxes(); len(ctxs) == 0 && v.preview != nil {
			// Failed before the server was known (a dead port, a wrong
			// key): the run has no plan of its own, so the grid keeps
			// the one the user asked for.
			r := *run
			r.Plan = v.preview.Plan
			r.Cells = append(append([]rundoc.Cell(nil), v.preview.Cells...), run.Cells...)
			shown = &r
		}
		if run.Status == rundoc.RunComplete {
			v.setProgress(1)
		} else if v.total > 0 {
			v.setProgress(float64(min(len(run.Cells), v.total)) / float64(v.total))
		}
		v.mx.SetPendingText("not run")
		v.mx.SetRun(shown)
		saved := v.Saved == nil || v.Saved(run)
		v.setStatus(outcome(run, err, saved))
		if !saved && measuredCells(run) > 0 && v.OnExport != nil {
			v.exportBtn.Show()
		}
		if pre := run.PrefillCells(); len(pre) > 0 {
			v.prefill = pre
		}
	case err != nil:
		// Refused before it began (no URL, no server): nothing ran, so
		// the grid goes back to the preview.
		v.setStatus("The run could not start.", wording.Sentence(oneLine(err.Error())))
		if v.preview != nil {
			v.showPreview(v.preview)
		}
	}
	if v.OnFinished != nil {
		v.OnFinished(run, err)
	}
}

// fixedWidth keeps l as wide as it is with text widest, so the bar
// beside it does not shift as the percentage grows.
func fixedWidth(l *widget.Label, widest string) fyne.CanvasObject {
	w := fyne.MeasureText(widest, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
	spacer := canvas.NewRectangle(color.Transparent)
	spacer.SetMinSize(fyne.NewSize(w, 0))
	l.Alignment = fyne.TextAlignTrailing
	return container.NewStack(spacer, l)
}

// setStatus sets the one-line status and the detail under it ("" hides).
func (v *View) setStatus(line, detail string) {
	v.status.SetText(line)
	v.detail.SetText(detail)
	if detail == "" {
		v.detail.Hide()
	} else {
		v.detail.Show()
	}
}

// setProgress moves the bar and its percentage.
func (v *View) setProgress(f float64) {
	v.progress.SetValue(f)
	v.pct.SetText(fmt.Sprintf("%.0f%%", 100*f))
}

// measuredCells counts the cells of r that ran.
func measuredCells(r *rundoc.Run) int {
	n := 0
	for _, c := range r.Cells {
		if c.Status.Ran() {
			n++
		}
	}
	return n
}

// cells is "1 cell" or "n cells".
func cells(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}

// pick is a when cond holds, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// oneLine joins the lines of a message that joins several errors (the
// same one per request, often), each distinct line once.
func oneLine(s string) string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// outcome is the one-line summary of a finished run and the detail under
// it: a plain sentence first, the runner's own words (which name the
// request and the URL) second. saved says whether the run is in the
// history; the cells of one that is not are not "kept".
func outcome(r *rundoc.Run, err error, saved bool) (line, detail string) {
	ran := measuredCells(r)
	one := ran == 1
	measured := fmt.Sprintf("the %d measured %s", ran, pick(one, "cell", "cells"))
	kept := measured + pick(one, " is kept", " are kept")
	if !saved {
		kept = measured + pick(one, " was", " were") + " not saved to the history: use Export to keep " + pick(one, "it", "them")
	}
	why := ""
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		why = wording.Sentence(oneLine(err.Error()))
	case r.Error != "":
		why = wording.Sentence(oneLine(r.Error))
	}
	switch r.Status {
	case rundoc.RunComplete:
		if !saved && ran > 0 {
			return fmt.Sprintf("Run complete: %s measured, not saved to the history: use Export to keep it.", cells(ran)), ""
		}
		return fmt.Sprintf("Run complete: %s measured.", cells(ran)), ""
	case rundoc.RunCancelled:
		if ran == 0 {
			return "Run cancelled before any cell was measured.", ""
		}
		return fmt.Sprintf("Run cancelled: %s.", kept), ""
	}
	stopped := "The run stopped"
	var gone *bench.ServerGoneError
	if errors.As(err, &gone) {
		// The engine's sentence says where it died and what was kept;
		// the advice is the app's own.
		return fmt.Sprintf("The server stopped answering; %s.", kept),
			wording.Sentence(oneLine(gone.Stopped()) + "; start the server again and press Resume in Results to measure the rest")
	}
	if errors.Is(err, bench.ErrTooManyFailures) || strings.Contains(r.Error, bench.ErrTooManyFailures.Error()) {
		stopped = "The run stopped because cells kept failing"
		if strings.Contains(why, "cannot reach the server") {
			stopped = "The server stopped answering"
		}
		// The runner's message repeats each request's error; the last
		// failed cell's first line says it once.
		for i := len(r.Cells) - 1; i >= 0; i-- {
			if c := r.Cells[i]; c.Status == rundoc.StatusFailed && c.Reason != "" {
				why = "Last error: " + wording.Sentence(strings.SplitN(c.Reason, "\n", 2)[0])
				break
			}
		}
	} else if ran == 0 {
		return "The run failed before measuring anything.", why
	}
	if ran == 0 {
		return stopped + " before any cell was measured.", why
	}
	return fmt.Sprintf("%s; %s.", stopped, kept), why
}
