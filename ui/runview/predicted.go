package runview

// The plan's predicted figures: the cells that will run, as predict
// (engine/predict) says they will, from the same request as the Launch
// view's "Will it fit?" panel and `rigbench-cli predict`.

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/predicted"
	"github.com/rigbench/rigbench/ui/wording"
)

// predictedLine is the plan preview's line of predicted figures.
type predictedLine struct {
	label *widget.Label
	live  predicted.Live
	// req is the target's prediction without a plan (nil: none).
	req *predict.Request
}

func newPredictedLine() *predictedLine {
	l := &predictedLine{label: widget.NewLabel("")}
	l.label.Wrapping = fyne.TextWrapWord
	l.label.TextStyle.Italic = true
	l.label.Hide()
	return l
}

// SetPrediction is the target's prediction (the demo's card, or the
// launched server's card, model and flags) without a plan; the view
// predicts its plan with it and shows the figures of the cells that will
// run, labelled predicted. nil shows none (an endpoint: its card is not
// known).
func (v *View) SetPrediction(req *predict.Request) {
	v.pred.req = req
	v.planEdited()
}

// Predicted is the line of predicted figures under the estimate, "" when
// there is none.
func (v *View) Predicted() string {
	if !v.pred.label.Visible() {
		return ""
	}
	return v.pred.label.Text
}

// PredictedPending reports whether a prediction is still to come.
func (v *View) PredictedPending() bool { return v.pred.live.Pending() }

// predictPlan predicts plan p off the UI goroutine and shows the newest
// answer.
func (v *View) predictPlan(p rundoc.Plan) {
	l := v.pred
	if l.req == nil {
		l.live.Stop()
		l.label.Hide()
		v.mx.SetPendingDetail(nil)
		return
	}
	req := *l.req
	req.Plan = p
	l.live.Do(req, func(pr *predict.Prediction, err error) {
		switch {
		case err != nil:
			// The run says why it cannot start; a prediction's failure
			// here would only repeat it.
			l.label.Hide()
			return
		case !pr.Fits:
			l.label.SetText("Predicted: " + wording.LowerFirst(pr.Verdict()))
			v.mx.SetPendingDetail(nil)
		default:
			l.label.SetText(predicted.Cells(pr))
			if !v.Running() && !v.outcomeShown {
				// Only the plan preview's matrix: a run's shows measured
				// cells, never beside predicted ones.
				v.mx.SetPendingDetail(predicted.CellDetails(pr))
			}
		}
		l.label.Show()
	})
}
