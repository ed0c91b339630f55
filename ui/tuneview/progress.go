package tuneview

// A sweep in progress: start, resume and stop, and the status line and
// bar its reports drive.

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/wording"
)

// Start starts a new sweep of the form's inputs.
func (v *View) Start() {
	if v.Running() {
		return
	}
	r, err := v.sweep()
	if err != nil {
		v.status.SetText(wordErr(err))
		return
	}
	v.run(r, false)
}

// Resume continues the last sweep: variants the history holds finished are
// not measured again.
func (v *View) Resume() {
	if v.spec == nil || v.Running() || v.b.Resume == nil {
		return
	}
	r, err := v.b.Resume(*v.spec)
	if err != nil {
		v.status.SetText(wordErr(err))
		return
	}
	v.run(r, true)
}

// Stop cancels the sweep; finished variants are kept.
func (v *View) Stop() {
	v.job.Cancel()
}

func (v *View) run(r *tune.Runner, resume bool) {
	if !resume {
		r.History = nil
	}
	spec := r.Spec
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
	v.status.SetText(fmt.Sprintf("Sweep %s: starting %s…", spec.ID, wording.Count(len(spec.Variants()), "variant")))
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
		v.status.SetText(fmt.Sprintf("Stopped: %d of %s measured and kept in History; Resume measures the rest.", measured, wording.Count(len(res.Variants), "variant")))
	case err != nil:
		v.status.SetText(fmt.Sprintf("The sweep stopped: %s. %s measured; Resume measures the rest.", wordErr(err), wording.Count(measured, "variant")))
	default:
		v.status.SetText(fmt.Sprintf("Sweep %s done: %d of %s measured, each saved in History (tag %s).", res.Spec.ID, measured, wording.Count(len(res.Variants), "variant"), tune.Tag(res.Spec.ID)))
	}
	v.progress.SetValue(float64(len(res.Variants)-pending) / float64(max(1, len(res.Variants))))
	if pending > 0 {
		v.resumeBtn.Enable()
	}
	v.Show(res.Document())
}
