package runview

// The plan side of the view: the form's plan, the server's facts and
// the preview and estimate they give.

import (
	"fmt"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
)

// SetFacts tells the plan check the server's max_model_len and KV
// capacity (0 = unknown), from the launch readiness or a previous run.
func (v *View) SetFacts(f session.Facts) {
	v.facts = f
	v.planEdited()
}

// Facts are the server facts the plan check uses now.
func (v *View) Facts() session.Facts { return v.facts }

// SetSimulated shows or hides the banner saying runs use the simulator.
func (v *View) SetSimulated(sim bool) {
	v.demo = sim
	v.qc.setDemo(sim)
	defer v.planEdited() // the line beside Start names the demo's speed
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
		f rundoc.Field
		s string
	}{{rundoc.FieldContexts, contexts}, {rundoc.FieldConcurrency, concurrency}, {rundoc.FieldPrefill, prefill},
		{rundoc.FieldWindow, seconds}, {rundoc.FieldMaxOutput, maxOutput}} {
		if kv.s != "" {
			v.SetPlanField(kv.f, kv.s)
		}
	}
}

// SetPlanField types text into the editor's field for f, "" included
// (the field's default); false when the editor has no such field to type
// in (Prompts is a choice; precision and the longest window keep their
// defaults). The tests that hold the form to the CLI's flags use it.
func (v *View) SetPlanField(f rundoc.Field, text string) bool {
	e, ok := v.form.entries[f]
	if ok {
		e.SetText(text)
	}
	return ok
}

// PlanField is what the editor's field for f shows: its text and its
// placeholder (the default an empty field stands for); ok is false when
// the editor has no such field.
func (v *View) PlanField(f rundoc.Field) (text, placeholder string, ok bool) {
	e, ok := v.form.entries[f]
	if !ok {
		return "", "", false
	}
	return e.Text, e.PlaceHolder, true
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
		// The last valid plan's estimate would read as this one's.
		v.estimate.SetText("")
		v.estimate.Hide()
		v.startNote.SetText("")
		v.pred.live.Stop()
		v.pred.label.Hide()
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
			est = fmt.Sprintf("Estimated duration: about %s. All %d decode cells will run.", rundoc.ShortDuration(d), total)
		} else {
			est = fmt.Sprintf("Estimated duration: about %s. %d of %d decode cells will run; the rest are predicted over capacity or too long.",
				rundoc.ShortDuration(d), runnable, total)
		}
	} else {
		// Every cell is counted as if it fits, so this is the most it takes.
		est = fmt.Sprintf("Estimated duration: up to about %s. The server's KV capacity and maximum length are unknown until it is contacted: cells over capacity are found at run time.", rundoc.ShortDuration(d))
	}
	v.estimate.SetText(est)
	v.estimate.Show()
	v.startNote.SetText(startNote(v.demo, v.facts.Speed, d, v.facts.KVCapacity > 0 || p.KVCapacityOverride > 0))
	v.showPreview(preview)
	v.predictPlan(p)
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

// startNote is the line beside Start: what pressing it costs in real time,
// and on the demo at which speed, so nobody starts a half-hour demo by
// mistake (issue 41). known is false when the server's capacity is unknown
// and d is the most the plan takes.
func startNote(demo bool, speed float64, d time.Duration, known bool) string {
	about := "about "
	if !known {
		about = "up to about "
	}
	if !demo {
		return about + rundoc.ShortDuration(d)
	}
	return fmt.Sprintf("Demo at %g× · %s%s", max(1, speed), about, rundoc.ShortDuration(d))
}
