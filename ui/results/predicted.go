package results

// A decode cell's predicted figure beside its measured one: the run's
// launch predicted as `rigbench-cli predict` would have before it ran
// (predict.RunRequest, learning only from the runs before it).

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/predicted"
)

// PredictedDetail is the label of the cell details' predicted figure.
const PredictedDetail = "Predicted"

// SetPrediction turns on the predicted figure in a decode cell's details:
// predictions learn from src's history (the runs before the one shown)
// and find models in its cache, offline.
func (v *View) SetPrediction(src predicted.Source) { v.pred = &src }

// predictedRow is the details' predicted figure for measured cell c of
// run r: a label filled once the prediction, made off the UI goroutine,
// arrives; nil when there is none to make.
func (v *View) predictedRow(r *rundoc.Run, c *rundoc.Cell) *widget.Label {
	if v.pred == nil || c.Phase != rundoc.PhaseDecode {
		return nil
	}
	req, ok := predict.RunRequest(r)
	if !ok {
		return nil
	}
	req = v.pred.Request(req, true)
	req.History = predict.BeforeRun(v.pred.History, r)
	req.Plan.Contexts, req.Plan.Concurrency, req.Plan.PrefillContexts = []int{c.Context}, []int{c.Concurrency}, nil
	l := widget.NewLabel("predicting…")
	l.Wrapping = fyne.TextWrapWord
	v.predLive.Do(req, func(pr *predict.Prediction, err error) {
		switch {
		case err != nil:
			l.SetText(predicted.Failure(err))
		case !pr.Fits:
			l.SetText(predict.PredictedLabel + ": " + pr.Verdict())
		default:
			l.SetText("no prediction for this cell")
			for _, pc := range pr.Cells {
				if pc.Phase == rundoc.PhaseDecode && pc.Context == c.Context && pc.Concurrency == c.Concurrency {
					l.SetText(predicted.VersusMeasured(pc, c, pr.Basis()))
				}
			}
		}
	})
	return l
}
