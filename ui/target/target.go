// Package target is the choice of what a run benchmarks: the vLLM container
// RigBench launches, an existing OpenAI-compatible endpoint (URL and API
// key), or the built-in simulated server (demo). Demo runs are labelled
// simulated everywhere they appear.
package target

import (
	"net/url"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/session"
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
	// WeightsGiB is the endpoint's model size on the card as the user
	// gives it (0: not given), for the roofline figure (session.Options).
	WeightsGiB float64
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
	gib, _ := strconv.ParseFloat(strings.TrimSpace(c.weights.Text), 64)
	if !(gib > 0 && gib < 1e6) {
		gib = 0
	}
	return Choice{Kind: k, URL: strings.TrimSpace(c.url.Text), APIKey: c.key.Text, WeightsGiB: gib}
}

// WeightsProblem says what is wrong with the Model size field ("" when it
// is empty or a size in GiB).
func (c *Chooser) WeightsProblem() string {
	t := strings.TrimSpace(c.weights.Text)
	if t == "" {
		return ""
	}
	if gib, err := strconv.ParseFloat(t, 64); err != nil || !(gib > 0 && gib < 1e6) {
		return "Model size is the model's memory on the card in GiB, such as 4.6; leave it empty when not known."
	}
	return ""
}

// Set selects a choice (the API key and model size only when given).
func (c *Chooser) Set(ch Choice) {
	if ch.URL != "" {
		c.url.SetText(ch.URL)
	}
	if ch.APIKey != "" {
		c.key.SetText(ch.APIKey)
	}
	if ch.WeightsGiB > 0 {
		c.weights.SetText(strconv.FormatFloat(ch.WeightsGiB, 'f', -1, 64))
	}
	c.radio.SetSelected(labels[ch.Kind])
	c.changed()
}

// CheckURL says in one sentence what is wrong with an endpoint choice.
func CheckURL(ch Choice) string {
	if ch.Kind != Endpoint {
		return ""
	}
	if ch.URL == "" {
		return "Enter the endpoint's URL, such as http://127.0.0.1:8000."
	}
	u, err := url.Parse(ch.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "The URL must start with http:// or https:// and name a host, such as http://127.0.0.1:8000."
	}
	return ""
}

func (c *Chooser) changed() {
	ch := c.Choice()
	if ch.Kind == Endpoint {
		c.epBox.Show()
		if p := CheckURL(ch); p != "" && ch.URL != "" {
			c.problem.SetText(p)
			c.problem.Show()
		} else if p := c.WeightsProblem(); p != "" {
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
