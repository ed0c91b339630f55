package runview

import (
	"context"
	"fmt"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/job"
	"github.com/rigbench/rigbench/ui/matrix"
	"github.com/rigbench/rigbench/ui/progress"
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
	// startNote, beside Start, says what pressing it costs: the demo's
	// speed and the plan's estimate ("Demo at 10× · about 13 s").
	startNote                   *widget.Label
	quickBtn, fullBtn           *widget.Button
	liveTok, simulated, unsaved *widget.Label
	target, scaleNote           *widget.Label
	mxScroll                    *container.Scroll
	// rightBody holds the grid and the Quality check (layoutRight).
	rightBody                      *fyne.Container
	startBtn, cancelBtn, exportBtn *widget.Button
	progress                       *progress.Bar
	mx                             *matrix.Matrix
	power, clock                   *sparkline
	telemetry                      *fyne.Container
	content                        fyne.CanvasObject

	facts session.Facts
	// pred is the plan's predicted figures (SetPrediction).
	pred *predictedLine
	// outcomeShown: the status is a finished run's outcome, not yet
	// marked as the previous run's (planEditedByUser).
	outcomeShown bool
	demo         bool          // runs use the simulator (SetSimulated)
	prefill      []rundoc.Cell // the last run's prefill cells, for the estimate
	// preview is the grid shown when the run started: a run that fails
	// before the server is known has no plan of its own to draw.
	preview *rundoc.Run
	// total is the number of cells of the run in progress (0 until the
	// runner has planned them).
	total int

	// qc is the Quality check section (quality.go).
	qc *qualityCheck

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
	v.startNote = widget.NewLabel("")
	// The two plans a newcomer needs, one click each: a first look in
	// seconds on the demo, and METHOD.md's full matrix (the form's
	// placeholders, which an empty field stands for).
	v.quickBtn = widget.NewButton("Quick plan", func() { v.SetPlan(rundoc.QuickPlan()) })
	v.fullBtn = widget.NewButton("Full matrix", func() { v.SetPlan(rundoc.DefaultPlan()) })
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
	v.pred = newPredictedLine()
	v.form = newPlanForm(v.planEditedByUser)

	left := container.NewVBox(
		container.NewHBox(widget.NewLabelWithStyle("Plan", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
			layout.NewSpacer(), v.quickBtn, v.fullBtn),
		v.form.form(), v.planErr, v.estimate, v.pred.label,
	)
	controls := container.NewVBox(
		v.unsaved,
		v.simulated,
		v.target,
		container.NewBorder(nil, nil, container.NewHBox(v.startBtn, v.startNote, v.cancelBtn), v.exportBtn, v.status),
		v.detail,
		container.NewBorder(nil, nil, nil, container.NewHBox(fixedWidth(v.pct, "100%"), v.eta), v.progress),
		container.NewHBox(v.liveTok, v.telemetry),
		v.scaleNote,
	)
	v.mxScroll = container.NewScroll(v.mx)
	// The Quality check sits under the grid, closed until opened, and
	// hidden until the app gives it a target to ask (SetQuality).
	v.qc = newQualityCheck(v.Running)
	v.qc.header.OnTapped = func() { v.OpenQuality(!v.qc.open) }
	v.rightBody = container.NewStack()
	v.layoutRight()
	right := container.NewBorder(controls, nil, nil, nil, v.rightBody)
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

// StartNote is what the line beside Start says the run will cost ("Demo
// at 10× · about 13 s"), "" while the plan is not valid.
func (v *View) StartNote() string { return v.startNote.Text }

// PickQuickPlan presses the Quick plan button, as a user would.
func (v *View) PickQuickPlan() { v.quickBtn.OnTapped() }

// PickFullMatrix presses the Full matrix button, as a user would.
func (v *View) PickFullMatrix() { v.fullBtn.OnTapped() }

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

// Running reports whether a run is in progress.
func (v *View) Running() bool { return v.job.Running() }

// Done returns a channel closed when the current run's goroutine has
// returned (an already closed one when nothing runs).
func (v *View) Done() <-chan struct{} { return v.job.Done() }

// fixedWidth keeps l as wide as it is with text widest, so the bar
// beside it does not shift as the percentage grows.
func fixedWidth(l *widget.Label, widest string) fyne.CanvasObject {
	w := fyne.MeasureText(widest, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
	spacer := canvas.NewRectangle(color.Transparent)
	spacer.SetMinSize(fyne.NewSize(w, 0))
	l.Alignment = fyne.TextAlignTrailing
	return container.NewStack(spacer, l)
}
