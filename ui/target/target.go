// Package target is the choice of what a run benchmarks: the vLLM container
// RigBench launches, an existing OpenAI-compatible endpoint (URL and API
// key), or the built-in simulated server (demo). Demo runs are labelled
// simulated everywhere they appear.
package target

import (
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/wording"
)

// Kind is the kind of target: engine/session's, which a session runs.
type Kind = session.Kind

// Target kinds, as engine/session names them. The strings are stored in
// preferences.
const (
	Launch   = session.Launch
	Endpoint = session.Endpoint
	Demo     = session.Demo
)

// Labels shown in the chooser, in order.
var labels = map[Kind]string{
	Launch:   "Launch vLLM in Docker",
	Endpoint: "Existing endpoint",
	Demo:     "Demo (simulated server)",
}

var order = []Kind{Launch, Endpoint, Demo}

// Choice is a chosen target. APIKey is held in memory only.
type Choice struct {
	Kind   Kind
	URL    string
	APIKey string
	// WeightsGiB is the endpoint's model size on the card in GiB as the
	// user typed it ("": not given), for the roofline figure; Input hands
	// it to session.TargetInput, which reads it.
	WeightsGiB string
}

// Default is the target to preselect: the demo when the machine cannot
// launch vLLM (no NVIDIA GPU or no Docker), else the launch.
func Default(hasGPU, hasDocker bool) Kind {
	if !hasGPU || !hasDocker {
		return Demo
	}
	return Launch
}

// Chooser is the target widget. Its methods must run on the Fyne goroutine.
type Chooser struct {
	radio   *widget.RadioGroup
	url     *widget.Entry
	key     *widget.Entry
	weights *widget.Entry
	problem *widget.Label
	box     *fyne.Container
	epBox   *fyne.Container
	// OnChanged is called after every change of the choice.
	OnChanged func(Choice)
}

// NewChooser builds the chooser with kind preselected.
func NewChooser(kind Kind) *Chooser {
	c := &Chooser{url: widget.NewEntry(), key: widget.NewPasswordEntry(), weights: widget.NewEntry(), problem: widget.NewLabel("")}
	c.weights.SetPlaceHolder("optional, as vLLM logs it: \"Model loading took X GiB\"")
	c.weights.OnChanged = func(string) { c.changed() }
	c.url.SetPlaceHolder("http://127.0.0.1:8000")
	c.key.SetPlaceHolder("API key (optional, not saved)")
	c.problem.Importance = widget.DangerImportance
	c.problem.Hide()
	opts := make([]string, len(order))
	for i, k := range order {
		opts[i] = labels[k]
	}
	c.radio = widget.NewRadioGroup(opts, func(string) { c.changed() })
	c.radio.Horizontal = true
	c.radio.Required = true
	c.url.OnChanged = func(string) { c.changed() }
	c.key.OnChanged = func(string) { c.changed() }
	c.epBox = container.NewVBox(widget.NewForm(widget.NewFormItem("URL", c.url), widget.NewFormItem("API key", c.key),
		widget.NewFormItem("Model size (GiB)", c.weights)), c.problem)
	c.box = container.NewVBox(c.radio, c.epBox)
	c.Set(Choice{Kind: kind})
	return c
}

// Content is the widget's root.
func (c *Chooser) Content() fyne.CanvasObject { return c.box }

// Choice returns the current choice.
func (c *Chooser) Choice() Choice {
	k := Demo
	for _, kk := range order {
		if labels[kk] == c.radio.Selected {
			k = kk
		}
	}
	return Choice{Kind: k, URL: strings.TrimSpace(c.url.Text), APIKey: c.key.Text, WeightsGiB: c.weights.Text}
}

// Input is the choice as engine/session reads a target (the CLI's
// --endpoint, --api-key and --weights-gib fill the same fields): the
// model size only for an endpoint, whose box shows it. The app adds the
// Launch page's part (flags, demo speed, server).
func (c *Chooser) Input() session.TargetInput {
	ch := c.Choice()
	in := session.TargetInput{Kind: ch.Kind}
	if ch.Kind == Endpoint {
		in.URL, in.APIKey, in.WeightsGiB = ch.URL, ch.APIKey, ch.WeightsGiB
	}
	return in
}

// Problem says what is wrong with the endpoint's fields, in the app's
// words (Text), "" when nothing is or before a URL is typed.
func (c *Chooser) Problem() string {
	in := c.Input()
	if in.Kind != Endpoint {
		return ""
	}
	if _, err := in.Options(session.Launching{}); err != nil && (in.URL != "" || !isField(err, session.FieldEndpoint)) {
		return Text(err)
	}
	return ""
}

// fieldLabels are the app's names of a target's inputs (session's fields):
// the chooser's and the Launch page's.
var fieldLabels = map[rundoc.Field]string{
	session.FieldEndpoint: "URL", session.FieldWeightsGiB: "Model size", session.FieldSimSpeed: "Demo speed",
	session.FieldSimProfile: "The simulator's profile", session.FieldRig: "Rig", session.FieldModel: "The Launch page's Model",
	session.FieldFlags: "The Launch page's flags", session.FieldRigs: "The cluster's rigs",
	session.FieldInterface: "The cluster's interface", session.FieldNodeIPs: "The cluster's node addresses",
}

// FieldLabel is the app's name of a target's input, and whether it is
// one.
func FieldLabel(f rundoc.Field) (string, bool) {
	l, ok := fieldLabels[f]
	return l, ok
}

// Text words err as a sentence for the app: a target's *rundoc.FieldError
// with the field's name in the app (FieldLabel).
func Text(err error) string {
	var fe *rundoc.FieldError
	if errors.As(err, &fe) {
		if l, ok := FieldLabel(fe.Field); ok {
			return wording.Sentence(fe.In(l))
		}
	}
	return wording.Sentence(err.Error())
}

func isField(err error, f rundoc.Field) bool {
	var fe *rundoc.FieldError
	return errors.As(err, &fe) && fe.Field == f
}

// Set selects a choice (the API key and model size only when given).
func (c *Chooser) Set(ch Choice) {
	if ch.URL != "" {
		c.url.SetText(ch.URL)
	}
	if ch.APIKey != "" {
		c.key.SetText(ch.APIKey)
	}
	if ch.WeightsGiB != "" {
		c.weights.SetText(ch.WeightsGiB)
	}
	c.radio.SetSelected(labels[ch.Kind])
	c.changed()
}

func (c *Chooser) changed() {
	ch := c.Choice()
	if ch.Kind == Endpoint {
		c.epBox.Show()
		if p := c.Problem(); p != "" {
			c.problem.SetText(p)
			c.problem.Show()
		} else {
			c.problem.Hide()
		}
	} else {
		c.epBox.Hide()
	}
	if c.OnChanged != nil {
		c.OnChanged(ch)
	}
}
