package runview

import (
	"context"
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/ui/matrix"
)

// RepaintInterval is how often the view applies runner events: four
// repaints a second is live to the eye and costs nothing at 128 streams.
const RepaintInterval = 250 * time.Millisecond

// StartFunc runs one benchmark with plan, sending events to obs, and
// returns the finished run document. It must honour ctx: cancelling it is
// how the Cancel button and closing the window stop a run.
type StartFunc func(ctx context.Context, plan bench.Plan, obs bench.Observer) (*bench.Run, error)

// View is the Run view. Its methods must be called on the Fyne goroutine.
type View struct {
	start StartFunc
	form  *planForm

	planErr, estimate, status, eta, liveTok, simulated *widget.Label
	startBtn, cancelBtn                                *widget.Button
	progress                                           *widget.ProgressBar
	mx                                                 *matrix.Matrix
	power, clock                                       *sparkline
	telemetry                                          *fyne.Container
	content                                            fyne.CanvasObject

	facts   Facts
	prefill []bench.Cell // the last run's prefill cells, for the estimate

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	obs    *live
	last   *bench.Run

	// OnFinished, when set, is called on the Fyne goroutine after each run
	// with the run document (nil when the run could not start) and error.
	OnFinished func(*bench.Run, error)
	// OnPlanChanged, when set, is called after each valid edit of the plan
	// (the app stores the plan in its preferences).
	OnPlanChanged func(bench.Plan)
}

// New builds the view. start is called on a goroutine of its own.
func New(start StartFunc) *View {
	v := &View{start: start}
	v.planErr = widget.NewLabel("")
	v.planErr.Importance = widget.DangerImportance
	v.planErr.Wrapping = fyne.TextWrapWord
	v.estimate = widget.NewLabel("")
	v.estimate.Wrapping = fyne.TextWrapWord
	v.status = widget.NewLabel("Ready.")
	v.eta = widget.NewLabel("")
	v.liveTok = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.simulated = widget.NewLabel("")
	v.simulated.Importance = widget.WarningImportance
	v.simulated.Hide()
	v.progress = widget.NewProgressBar()
	v.startBtn = widget.NewButtonWithIcon("Start run", theme.MediaPlayIcon(), v.Start)
	v.startBtn.Importance = widget.HighImportance
	v.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.MediaStopIcon(), v.Cancel)
	v.cancelBtn.Disable()
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
		v.simulated,
		container.NewHBox(v.startBtn, v.cancelBtn, v.status),
		container.NewBorder(nil, nil, nil, v.eta, v.progress),
		container.NewHBox(v.liveTok, v.telemetry),
	)
	right := container.NewBorder(controls, nil, nil, nil, container.NewScroll(v.mx))
	split := container.NewHSplit(container.NewVScroll(left), right)
	split.Offset = 0.3
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

// SetFacts tells the plan check the server's max_model_len and KV
// capacity (0 = unknown), from the launch readiness or a previous run.
func (v *View) SetFacts(f Facts) {
	v.facts = f
	v.planEdited()
}

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
func (v *View) Plan() (bench.Plan, error) { return v.form.plan() }

// SetPlan fills the editor.
func (v *View) SetPlan(p bench.Plan) { v.form.set(p) }

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
func (v *View) Running() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cancel != nil
}

// Done returns a channel closed when the current run's goroutine has
// returned (an already closed one when nothing runs).
func (v *View) Done() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return v.done
}

func (v *View) planEdited() {
	if v.Running() {
		return
	}
	p, err := v.form.plan()
	if err != nil {
		v.planErr.SetText(err.Error())
		v.planErr.Show()
		v.startBtn.Disable()
		return
	}
	v.planErr.SetText("")
	v.planErr.Hide()
	v.startBtn.Enable()
	preview := Predict(p, v.facts)
	d, runnable := Estimate(preview, v.facts, v.prefill)
	known := "KV capacity unknown until the server is up: cells over capacity are found at run time."
	if v.facts.KVCapacity > 0 || p.KVCapacityOverride > 0 {
		known = fmt.Sprintf("%d of %d decode cells will run; the rest are predicted over capacity or too long.", runnable, len(p.Contexts)*len(p.Concurrency))
	}
	v.estimate.SetText(fmt.Sprintf("Estimated duration: about %s. %s", FormatDuration(d), known))
	v.mx.SetRunning(0, 0, false)
	v.mx.SetPendingText("will run")
	v.mx.SetRun(preview)
	if v.OnPlanChanged != nil {
		v.OnPlanChanged(p)
	}
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
	ctx, cancel := context.WithCancel(context.Background())
	obs := &live{}
	done := make(chan struct{})
	v.mu.Lock()
	v.cancel, v.done, v.obs = cancel, done, obs
	v.mu.Unlock()
	v.startBtn.Disable()
	v.cancelBtn.Enable()
	v.status.SetText("Starting…")
	v.progress.SetValue(0)
	v.eta.SetText("")
	v.liveTok.SetText("")
	v.mx.SetPendingText("")
	v.mx.SetRun(Predict(p, v.facts))

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
	v.mu.Lock()
	cancel := v.cancel
	v.mu.Unlock()
	if cancel != nil {
		v.status.SetText("Cancelling…")
		v.cancelBtn.Disable()
		cancel()
	}
}

// apply repaints from one snapshot.
func (v *View) apply(s snapshot) {
	if !s.started {
		if s.message != "" {
			v.status.SetText(s.message)
		}
		return
	}
	v.mx.SetRunning(s.current[0], s.current[1], s.measuring)
	v.mx.SetRun(&s.run)
	if s.total > 0 {
		v.progress.SetValue(float64(s.index) / float64(s.total))
		v.status.SetText(fmt.Sprintf("Cell %d of %d", min(s.index+1, s.total), s.total))
	}
	if s.message != "" {
		v.status.SetText(v.status.Text + " · " + s.message)
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
func (v *View) finish(obs *live, run *bench.Run, err error) {
	if s, ok := obs.take(); ok {
		v.apply(s)
	}
	v.mu.Lock()
	v.cancel = nil
	v.mu.Unlock()
	v.startBtn.Enable()
	v.cancelBtn.Disable()
	v.eta.SetText("")
	v.liveTok.SetText("")
	v.mx.SetRunning(0, 0, false)
	switch {
	case run != nil:
		v.last = run
		v.mx.SetRun(run)
		v.progress.SetValue(1)
		v.status.SetText(outcome(run, err))
		if pre := run.PrefillCells(); len(pre) > 0 {
			v.prefill = pre
		}
	case err != nil:
		v.status.SetText(err.Error())
	}
	if v.OnFinished != nil {
		v.OnFinished(run, err)
	}
}

// outcome is the one-line summary of a finished run.
func outcome(r *bench.Run, err error) string {
	ran := 0
	for _, c := range r.Cells {
		if c.Status.Ran() {
			ran++
		}
	}
	switch r.Status {
	case bench.RunComplete:
		return fmt.Sprintf("Run complete: %d cells measured.", ran)
	case bench.RunCancelled:
		return fmt.Sprintf("Run cancelled: the %d cells measured so far are kept.", ran)
	default:
		if err != nil {
			return err.Error()
		}
		if r.Error != "" {
			return r.Error
		}
		return fmt.Sprintf("Run %s.", r.Status)
	}
}
