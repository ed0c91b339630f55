package launchview

// "Will it fit?": the prediction of the launch the form describes, live as
// its flags change: vLLM's memory split as a bar, the verdict, the fixes
// as one-click buttons and, when it fits, the predicted speed. The request
// is the CLI's predict's (predict.Request), so both give the same figures.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/predicted"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/wording"
)

// fitPanel is the "Will it fit?" panel: in the launch previews' column
// above Start, or in the demo's panel.
type fitPanel struct {
	box   *fyne.Container
	title *widget.Label
	bar   *memoryBar
	// legend is the bar's key (newLegend) in legendSlot; legendText its
	// lines.
	legendSlot *fyne.Container
	legendText []string
	verdict    *widget.Label
	fixes      *fyne.Container
	headline   *widget.Label
	lookup     *widget.Button

	// src is where predictions learn and look models up; nil: the panel
	// is off (the app turns it on with SetPrediction).
	src  *predicted.Source
	live predicted.Live
	// plan is the matrix the headline predicts (the Run view's plan).
	plan rundoc.Plan
	// hw is the hardware of the launch target's machine (this computer or
	// the picked rig), nil until detection has read it.
	hw *hardware.Snapshot
	// model is the model of the prediction shown or coming, for the
	// lookup button.
	model string
}

func newFitPanel() *fitPanel {
	p := &fitPanel{plan: rundoc.QuickPlan()}
	p.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.title.Wrapping = fyne.TextWrapWord
	p.bar = newMemoryBar()
	p.legendSlot = container.NewStack()
	p.verdict = widget.NewLabel("")
	p.verdict.Wrapping = fyne.TextWrapWord
	p.fixes = container.NewVBox()
	p.headline = widget.NewLabel("")
	p.headline.Wrapping = fyne.TextWrapWord
	p.lookup = widget.NewButtonWithIcon("Look up on Hugging Face", theme.SearchIcon(), nil)
	p.box = container.NewVBox(widget.NewSeparator(), p.title, p.bar, p.legendSlot, p.verdict, p.fixes, container.NewHBox(p.lookup), p.headline)
	p.box.Hide()
	return p
}

// SetPrediction turns the "Will it fit?" panel on: its predictions learn
// from src's history and find models in src's cache (offline, so typing
// never reaches the network; the panel's lookup button asks the Hub once).
func (v *View) SetPrediction(src predicted.Source) {
	v.fit.src = &src
	v.refreshFit()
}

// SetPredictPlan is the plan whose decode cells the panel's headline
// predicts (the Run view's).
func (v *View) SetPredictPlan(p rundoc.Plan) {
	if reflect.DeepEqual(p, v.fit.plan) {
		return
	}
	v.fit.plan = p
	v.refreshFit()
}

// PredictRequest is the prediction the panel makes for the chosen target
// and the form's launch, with the source's history and cache (offline),
// and no plan; ok is false where there is none (an endpoint, detection
// not finished, no model, the panel off). The app hands it to the Run
// view, which predicts its plan with it.
func (v *View) PredictRequest() (req predict.Request, ok bool) {
	req, why, ok := v.fitRequest(v.Form.Config())
	if !ok || why != "" || v.fit.src == nil {
		return predict.Request{}, false
	}
	return v.fit.src.Request(req, true), true
}

// fitRequest is the request for the target and c: why is a sentence to
// show instead of a prediction ("" when there is a request); ok is false
// when the panel shows nothing (an endpoint, hardware not yet read).
func (v *View) fitRequest(c vllm.LaunchConfig) (req predict.Request, why string, ok bool) {
	switch v.Target.Choice().Kind {
	case target.Demo:
		cfg, _ := DemoConfig(c, v.demo.value)
		return predict.Request{Demo: true, Profile: cfg.Profile, Args: DemoArgs(c)}, "", true
	case target.Launch:
		return v.cardRequest(c.Model, DemoArgs(c))
	}
	return req, "", false
}

// cardRequest is the request for model and vLLM flags args on the launch
// target's card (this computer's or the rig's), as fitRequest returns it.
func (v *View) cardRequest(model string, args []string) (req predict.Request, why string, ok bool) {
	if v.fit.hw == nil {
		return req, "", false
	}
	if model == "" {
		return req, "Type the model's Hugging Face id to see whether it fits this card.", true
	}
	hw := *v.fit.hw
	return predict.Request{Snapshot: &hw, Model: model, Args: args}, "", true
}

// RunPredictRequest is the prediction of what a run on the chosen target
// measures, for the Run view: the demo with the form's flags, or the
// server launched from this view (its model and flags as launched) on the
// target's card; ok is false for an endpoint, before a launch, or with
// the panel off.
func (v *View) RunPredictRequest() (req predict.Request, ok bool) {
	if v.Target.Choice().Kind != target.Launch {
		return v.PredictRequest()
	}
	srv := v.Server()
	if srv == nil || srv.Record == nil || v.fit.src == nil {
		return req, false
	}
	req, why, ok := v.cardRequest(srv.Record.Model, srv.Record.Args)
	if !ok || why != "" {
		return predict.Request{}, false
	}
	return v.fit.src.Request(req, true), true
}

// refreshFit predicts the form's launch again, off the UI goroutine; the
// newest answer is shown, earlier ones are dropped.
func (v *View) refreshFit() {
	p := v.fit
	if p == nil || v.Form == nil {
		return
	}
	req, why, ok := v.fitRequest(v.Form.Config())
	if !ok || p.src == nil {
		p.live.Stop()
		p.box.Hide()
		return
	}
	p.box.Show()
	if why != "" {
		p.live.Stop()
		p.showFailure(why, false)
		v.fitResized()
		return
	}
	p.model = req.Model
	req.Plan = p.plan
	p.live.Do(p.src.Request(req, true), func(pr *predict.Prediction, err error) {
		if err != nil {
			p.showFailure(predicted.Failure(err), predicted.NeedsLookup(err))
		} else {
			p.show(pr, v.applyFix)
		}
		v.fitResized()
	})
}

// fitResized lays out anew the column the panel is in, whose height
// changed with it (the previews' above Start, or the demo's).
func (v *View) fitResized() {
	v.relayout()
	if v.demo != nil && v.demoScroll != nil && v.demoScroll.Visible() {
		v.demo.box.Refresh()
		v.demoScroll.Refresh()
	}
}

// showFailure shows why there is no prediction, with the lookup button
// where a lookup on the Hub may find the model.
func (p *fitPanel) showFailure(why string, lookup bool) {
	p.title.SetText("Will it fit?")
	p.bar.Hide()
	p.legendSlot.Hide()
	p.fixes.RemoveAll()
	p.headline.Hide()
	p.verdict.Importance, p.verdict.TextStyle.Bold = widget.WarningImportance, false
	p.verdict.SetText(why)
	if lookup {
		p.lookup.Show()
	} else {
		p.lookup.Hide()
	}
}

// show shows a prediction: the split, the verdict, and the fixes or the
// predicted speed.
func (p *fitPanel) show(pr *predict.Prediction, apply func(predict.Fix)) {
	cards := ""
	if pr.Cards > 1 {
		cards = fmt.Sprintf("%d× ", pr.Cards)
	}
	p.title.SetText(fmt.Sprintf("Will it fit? %s memory split of %s on %s%s (%.1f GiB)",
		upperFirst(predict.PredictedLabel), pr.Model.ID, cards, pr.Card.Name, pr.Card.MemoryGiB))
	parts := pr.Parts()
	p.bar.set(parts)
	p.bar.Show()
	key, texts := newLegend(parts, pr.Memory.TotalGiB)
	p.legendSlot.Objects, p.legendText = []fyne.CanvasObject{key}, texts
	p.legendSlot.Show()
	p.legendSlot.Refresh()
	p.lookup.Hide()
	// Fyne's success green reads at 1.5:1 on the light theme's white: a
	// verdict that fits is in the text's colour, in bold.
	p.verdict.Importance, p.verdict.TextStyle.Bold = widget.MediumImportance, pr.Fits
	if !pr.Fits {
		p.verdict.Importance = widget.DangerImportance
	}
	p.verdict.SetText(pr.Verdict())
	p.fixes.RemoveAll()
	for _, f := range pr.Fixes {
		if len(f.Flags) == 0 {
			l := widget.NewLabel("Or " + wording.Sentence(f.Says))
			l.Wrapping = fyne.TextWrapWord
			p.fixes.Add(l)
			continue
		}
		b := widget.NewButton(FixLabel(f), func() { apply(f) })
		b.Alignment = widget.ButtonAlignLeading
		p.fixes.Add(b)
	}
	p.headline.SetText(predicted.Headline(pr))
	p.headline.Hidden = !pr.Fits || p.headline.Text == ""
	p.headline.Refresh()
}

// FixLabel is a fix's button: "Apply: --max-model-len 37888".
func FixLabel(f predict.Fix) string { return "Apply: " + strings.Join(f.Args(), " ") }

// applyFix sets the fix's flags in the form, in one edit: a catalog flag
// in its control, any other among the extra arguments (where a catalog
// flag typed there is dropped, or it would override the control's).
func (v *View) applyFix(f predict.Fix) {
	c := v.Form.Config()
	for _, fl := range f.Flags {
		c.Extra = dropArg(c.Extra, fl.Name)
		if cf, _, ok := vllm.Lookup(fl.Name); ok && !cf.Managed {
			c.Set(fl.Name, fl.Value)
		} else {
			c.Extra = append(c.Extra, fl.Name, fl.Value)
		}
	}
	v.Form.SetConfig(c)
}

// lookUpModel asks the Hub for the model once, off the UI goroutine, then
// predicts again (the lookup keeps the facts in the cache the live
// predictions read).
func (v *View) lookUpModel() {
	p := v.fit
	if p.src == nil || p.model == "" {
		return
	}
	src, id := *p.src, p.model
	p.lookup.Disable()
	p.lookup.SetText("Looking up " + id + "…")
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := src.LookUp(ctx, id)
		fyne.Do(func() {
			p.lookup.Enable()
			p.lookup.SetText("Look up on Hugging Face")
			if err != nil {
				p.showFailure(wording.Sentence(err.Error()), false)
				v.fitResized()
				return
			}
			v.refreshFit()
		})
	}()
}

// FitShown reports whether the "Will it fit?" panel is on the page.
func (v *View) FitShown() bool { return v.fit.box.Visible() }

// FitPending reports whether a prediction is still to come.
func (v *View) FitPending() bool { return v.fit.live.Pending() }

// FitText is what the panel says: its title, the bar's legend, the
// verdict and the predicted headline, a line each ("" when hidden).
func (v *View) FitText() string {
	p := v.fit
	if !p.box.Visible() {
		return ""
	}
	var lines []string
	for _, o := range []fyne.CanvasObject{p.title, p.legendSlot, p.verdict, p.headline} {
		if !o.Visible() {
			continue
		}
		if l, ok := o.(*widget.Label); ok {
			lines = append(lines, l.Text)
		} else {
			lines = append(lines, strings.Join(p.legendText, "  "))
		}
	}
	return strings.Join(lines, "\n")
}

// FitVerdict is the panel's verdict sentence ("" when hidden).
func (v *View) FitVerdict() string {
	if !v.fit.box.Visible() {
		return ""
	}
	return v.fit.verdict.Text
}

// FitHeadline is the panel's predicted speed line ("" when hidden).
func (v *View) FitHeadline() string {
	if !v.fit.box.Visible() || !v.fit.headline.Visible() {
		return ""
	}
	return v.fit.headline.Text
}

// FitFixes are the labels of the panel's fix buttons.
func (v *View) FitFixes() []string {
	var out []string
	for _, o := range v.fit.fixes.Objects {
		if b, ok := o.(*widget.Button); ok {
			out = append(out, b.Text)
		}
	}
	return out
}

// FitFixButton is the panel's fix button labelled label, nil when none.
func (v *View) FitFixButton(label string) *widget.Button {
	for _, o := range v.fit.fixes.Objects {
		if b, ok := o.(*widget.Button); ok && b.Text == label {
			return b
		}
	}
	return nil
}

// FitLookupButton is the panel's "Look up on Hugging Face" button, nil
// while it is hidden.
func (v *View) FitLookupButton() *widget.Button {
	if !v.fit.lookup.Visible() {
		return nil
	}
	return v.fit.lookup
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// RevealFit scrolls the column that holds the panel to its end, where the
// panel is (the screenshot tour frames it).
func (v *View) RevealFit() {
	if v.demoScroll.Visible() {
		v.demoScroll.ScrollToBottom()
		return
	}
	v.topScroll.ScrollToBottom()
}
