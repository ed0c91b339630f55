package runview

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/ui/job"
	"github.com/rigbench/rigbench/ui/progress"
	"github.com/rigbench/rigbench/ui/qualityview"
	"github.com/rigbench/rigbench/ui/wording"
)

// QualityFunc runs the quality probe named probe (session.NewQualityProbe's
// names: "agreement", "gsm8k:200", …) against the Run view's target, telling
// progress after each item, and returns its result. With base it refuses,
// before asking anything, a baseline the probe cannot pair with. It must
// honour ctx (Cancel) and is called on a goroutine of its own.
type QualityFunc func(ctx context.Context, probe string, base *quality.Result, progress func(done, total int)) (*quality.Result, error)

// Probe choices of the Quality check (qualityview's, which Tune offers too).
const (
	ProbeAgreement = qualityview.ProbeAgreement
	ProbeGSM8K     = qualityview.ProbeGSM8K
	ProbeMMLUPro   = qualityview.ProbeMMLUPro
	ProbeGPQA      = qualityview.ProbeGPQA
)

// NoBaseline is the baseline choice that compares with nothing.
const NoBaseline = "No baseline"

// qualityCheck is the Run view's Quality check: a probe of the target's
// answers, alone or paired with a baseline (an earlier check of this app
// session, or a saved result), shown by a qualityview.
type qualityCheck struct {
	run QualityFunc

	probe                          *qualityview.Picker
	baseline                       *widget.Select
	checkBtn, cancelBtn, exportBtn *widget.Button
	openBtn                        *widget.Button
	status                         *widget.Label
	bar                            *progress.Bar
	result                         *qualityview.View
	scroll                         *container.Scroll
	// header opens and closes the section; pane is the open section
	// (the header above its scrolling content).
	header    *widget.Button
	pane      fyne.CanvasObject
	open      bool
	content   fyne.CanvasObject
	baselines []namedResult
	last      *quality.Result
	job       job.Job
	busy      func() bool // a run is in progress
}

// namedResult is a baseline choice: its label in the drop-down and the
// result.
type namedResult struct {
	label string
	r     *quality.Result
}

func newQualityCheck(busy func() bool) *qualityCheck {
	q := &qualityCheck{busy: busy}
	q.probe = qualityview.NewPicker(false, nil)
	q.baseline = widget.NewSelect([]string{NoBaseline}, nil)
	q.baseline.SetSelected(NoBaseline)
	q.openBtn = widget.NewButtonWithIcon("Baseline file…", theme.FolderOpenIcon(), nil)
	q.checkBtn = widget.NewButtonWithIcon("Check quality", theme.ConfirmIcon(), q.start)
	q.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.MediaStopIcon(), q.cancel)
	q.cancelBtn.Disable()
	q.exportBtn = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), nil)
	q.exportBtn.Disable()
	q.status = widget.NewLabel(qualityIdle)
	q.status.Wrapping = fyne.TextWrapWord
	q.bar = progress.NewBar()
	q.bar.Hide()
	q.result = qualityview.New()
	// Three short rows rather than one long one: the Run tab must fit a
	// 900-unit-wide window. The baseline's label names the check's time
	// and launch: it takes the width its row leaves.
	q.content = container.NewVBox(
		q.probe.Row(),
		container.NewBorder(nil, nil, widget.NewLabel("Baseline"), q.openBtn, q.baseline),
		container.NewBorder(nil, nil, container.NewHBox(q.checkBtn, q.cancelBtn), q.exportBtn, q.status),
		q.bar, q.result.Content(),
	)
	// Open, the section shares the height with the grid (a split the user
	// can drag) and scrolls, so it fits a 900×600 window.
	q.scroll = container.NewVScroll(q.content)
	q.header = widget.NewButtonWithIcon("Quality check", theme.MenuExpandIcon(), nil)
	q.header.Alignment = widget.ButtonAlignLeading
	q.header.Importance = widget.LowImportance
	q.pane = container.NewBorder(q.header, nil, nil, nil, q.scroll)
	return q
}

// qualityIdle is the status before a check, and qualityDemo the demo's:
// which data its probes ask (its own sets, the only problems its simulator
// reads).
const (
	qualityIdle = "Checks what the target answers; against a baseline, whether a flag cost accuracy."
	qualityDemo = "On the demo, GSM8K asks its own arithmetic set, and MMLU-Pro and GPQA Diamond the same problems as four-option questions."
)

// setDemo says, until a check has run, which data the demo's probes ask.
func (q *qualityCheck) setDemo(demo bool) {
	if q.last != nil || q.job.Running() {
		return
	}
	if demo {
		q.setStatus(qualityDemo, widget.MediumImportance)
	} else {
		q.setStatus(qualityIdle, widget.MediumImportance)
	}
}

// chosenBaseline is the baseline's result (nil for none).
func (q *qualityCheck) chosenBaseline() *quality.Result {
	for _, b := range q.baselines {
		if b.label == q.baseline.Selected {
			return b.r
		}
	}
	return nil
}

// addBaseline offers r as a baseline under label and, when choose, picks
// it.
func (q *qualityCheck) addBaseline(label string, r *quality.Result, choose bool) {
	q.baselines = append(q.baselines, namedResult{label, r})
	opts := []string{NoBaseline}
	for _, b := range q.baselines {
		opts = append(opts, b.label)
	}
	q.baseline.SetOptions(opts)
	if choose {
		q.baseline.SetSelected(label)
	}
}

func (q *qualityCheck) setStatus(s string, importance widget.Importance) {
	q.status.Importance = importance
	q.status.SetText(wording.Sentence(s))
}

// start runs the chosen probe against the target.
func (q *qualityCheck) start() {
	if q.job.Running() || q.run == nil {
		return
	}
	if q.busy() {
		q.setStatus("A run is in progress: check quality once it has finished, so that the probe does not disturb its measurements", widget.WarningImportance)
		return
	}
	name, err := q.probe.Name()
	if err != nil {
		q.setStatus(err.Error(), widget.DangerImportance)
		return
	}
	base := q.chosenBaseline()
	ctx, cancel := context.WithCancel(context.Background())
	done := q.job.Begin(cancel)
	q.checkBtn.Disable()
	q.cancelBtn.Enable()
	q.bar.SetValue(0)
	q.bar.Show()
	q.setStatus("Checking quality: "+name+"…", widget.MediumImportance)
	prog := func(d, t int) {
		fyne.Do(func() {
			if q.job.Running() {
				q.bar.SetValue(float64(d) / float64(t))
				q.setStatus(fmt.Sprintf("Checking quality: %s, %d of %d answered…", name, d, t), widget.MediumImportance)
			}
		})
	}
	go func() {
		defer close(done)
		r, err := q.run(ctx, name, base, prog)
		fyne.DoAndWait(func() { q.finish(name, r, base, err, ctx.Err() != nil) })
	}()
}

// finish shows a check's outcome.
func (q *qualityCheck) finish(name string, r, base *quality.Result, err error, cancelled bool) {
	q.job.End()
	q.checkBtn.Enable()
	q.cancelBtn.Disable()
	q.bar.Hide()
	switch {
	case cancelled:
		q.setStatus("Quality check cancelled; nothing was kept", widget.MediumImportance)
		return
	case err != nil:
		q.setStatus(err.Error(), widget.DangerImportance)
		return
	}
	if err := q.result.Set(r, base); err != nil {
		q.setStatus(err.Error(), widget.DangerImportance)
		return
	}
	q.last = r
	q.scroll.Refresh()
	q.exportBtn.Enable()
	label := fmt.Sprintf("%s at %s, %s", r.Probe, r.Started.Local().Format(time.TimeOnly), quality.Answered(r))
	q.addBaseline(label, r, false)
	q.setStatus(fmt.Sprintf("Checked %s; it is offered as a baseline for the next check", name), widget.SuccessImportance)
}

func (q *qualityCheck) cancel() {
	if q.job.Running() {
		q.setStatus("Cancelling the quality check…", widget.MediumImportance)
		q.cancelBtn.Disable()
		q.job.Cancel()
	}
}

// SetQuality shows the Quality check, which runs its probes with f (nil
// hides it).
func (v *View) SetQuality(f QualityFunc) {
	v.qc.run = f
	v.layoutRight()
}

// OpenQuality opens (or closes) the Quality check section, as its header
// does.
func (v *View) OpenQuality(open bool) {
	v.qc.open = open
	v.layoutRight()
}

// layoutRight puts the grid and the Quality check on the right-hand side:
// the grid alone while the check is hidden, the check's header under it
// while closed, and the two in a split while open.
func (v *View) layoutRight() {
	q := v.qc
	icon := theme.MenuExpandIcon()
	var body fyne.CanvasObject
	switch {
	case q.run == nil:
		body = v.mxScroll
	case q.open:
		icon = theme.MenuDropDownIcon()
		split := container.NewVSplit(v.mxScroll, q.pane)
		split.Offset = 0.35
		body = split
	default:
		body = container.NewBorder(nil, q.header, nil, nil, v.mxScroll)
	}
	q.header.SetIcon(icon)
	v.rightBody.Objects = []fyne.CanvasObject{body}
	v.rightBody.Refresh()
}

// SetQualityProbe picks the probe (ProbeAgreement, ProbeGSM8K, …) and the
// items a task probe asks ("" asks them all), as a user would.
func (v *View) SetQualityProbe(probe, items string) {
	v.qc.probe.Set(probe, items)
}

// AddQualityBaseline offers r, read from a file named label, as a baseline
// and picks it.
func (v *View) AddQualityBaseline(label string, r *quality.Result) { v.qc.addBaseline(label, r, true) }

// QualityBaselines are the baseline choices offered, NoBaseline first.
func (v *View) QualityBaselines() []string { return v.qc.baseline.Options }

// SetQualityBaseline picks a baseline by its label, as a user would.
func (v *View) SetQualityBaseline(label string) { v.qc.baseline.SetSelected(label) }

// CheckQuality presses Check quality.
func (v *View) CheckQuality() { v.qc.checkBtn.OnTapped() }

// CancelQuality presses the Quality check's Cancel.
func (v *View) CancelQuality() { v.qc.cancel() }

// QualityDone is closed when the last quality check's goroutine has
// returned (an already closed channel when none ran).
func (v *View) QualityDone() <-chan struct{} { return v.qc.job.Done() }

// QualityChecking reports whether a quality check is in progress.
func (v *View) QualityChecking() bool { return v.qc.job.Running() }

// QualityStatus is the line under the Quality check's buttons.
func (v *View) QualityStatus() string { return v.qc.status.Text }

// QualityText is the result as shown (qualityview.View.Text).
func (v *View) QualityText() []string { return v.qc.result.Text() }

// QualityResult is the last check's result (nil before one succeeded):
// what Export saves.
func (v *View) QualityResult() *quality.Result { return v.qc.last }

// SetOnQualityOpen sets what the Baseline file… button does: the app
// asks for a file and hands its result to AddQualityBaseline.
func (v *View) SetOnQualityOpen(f func()) { v.qc.openBtn.OnTapped = f }

// SetOnQualityExport sets what Export… does with the last check's result
// (the app saves it as rigbench.quality/v1 JSON, which the CLI's
// --baseline reads).
func (v *View) SetOnQualityExport(f func(*quality.Result)) {
	v.qc.exportBtn.OnTapped = func() {
		if v.qc.last != nil && f != nil {
			f(v.qc.last)
		}
	}
}
