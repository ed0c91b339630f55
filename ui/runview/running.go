package runview

// A run in progress: start (the form's plan, or a stopped run's own
// for Resume), cancel, and the live matrix, status and bar it repaints.

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/wording"
)

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
	if v.qc.job.Running() {
		// The probe's requests would disturb the run's measurements.
		v.setStatus("A quality check is in progress: start the run once it has finished, or cancel it.", "")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	obs := &live{}
	done := v.job.Begin(cancel)
	v.startBtn.Disable()
	v.cancelBtn.Enable()
	v.setStatus("Starting…", "")
	v.outcomeShown = false
	v.exportBtn.Hide()
	v.total = 0
	v.setProgress(0)
	v.eta.SetText("")
	v.liveTok.SetText("")
	v.scaleNote.Show()
	v.preview = session.Predict(p, v.facts)
	v.mx.SetPendingText("")
	v.mx.SetPendingDetail(nil) // measured cells only, from here on
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
		v.eta.SetText("ETA " + rundoc.ShortDuration(s.eta))
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
		v.outcomeShown = true
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
		v.outcomeShown = true
		if v.preview != nil {
			v.showPreview(v.preview)
		}
	}
	if v.OnFinished != nil {
		v.OnFinished(run, err)
	}
}

// setStatus sets the one-line status and the detail under it ("" hides).
// A line too long for the status's room is cut there and given whole on
// the detail line ("Cell 3 of 14 · ramp 300ms at …" hid its end).
func (v *View) setStatus(line, detail string) {
	v.status.SetText(line)
	if detail == "" && v.statusCut(line) {
		detail = line
	}
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

// statusCut reports whether line is wider than the status label's room
// (false before the view has a size: nothing is cut yet).
func (v *View) statusCut(line string) bool {
	room := v.status.Size().Width - 2*theme.InnerPadding()
	return room > 0 && fyne.MeasureText(line, theme.TextSize(), v.status.TextStyle).Width > room
}

// planEditedByUser marks the outcome on screen as the previous run's once
// the plan is edited, so "Run complete: 14 cells" does not read as the new
// plan's (issue 41); its advice stays readable while the user acts on it.
func (v *View) planEditedByUser() {
	if v.outcomeShown && !v.Running() {
		v.outcomeShown = false
		v.setStatus(previousRun+v.status.Text, v.detail.Text)
	}
	v.planEdited()
}

// previousRun heads the outcome of the run before the plan was edited.
const previousRun = "Previous run: "
