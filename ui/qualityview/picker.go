package qualityview

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// Probe choices, in the order offered, with the probe name each stands for
// (session.NewQualityProbe's): the Run tab's Quality check and Tune's
// quality check pick from the same list.
const (
	ProbeNone      = "None"
	ProbeAgreement = "Token agreement"
	ProbeGSM8K     = "GSM8K"
	ProbeMMLUPro   = "MMLU-Pro"
	ProbeGPQA      = "GPQA Diamond"
)

var probeNames = map[string]string{ProbeAgreement: "agreement", ProbeGSM8K: "gsm8k", ProbeMMLUPro: "mmlu-pro", ProbeGPQA: "gpqa-diamond"}

// DefaultItems is the items a task probe asks unless told: 200 read a
// 7-point loss at p ≈ 0.0001 on the demo and take seconds there.
const DefaultItems = "200"

// Picker picks a probe and, for a task probe, how many items it asks.
type Picker struct {
	Probe   *widget.Select
	Items   *widget.Entry
	changed func()
}

// NewPicker offers the probes, with None first when none is allowed (Tune,
// where a sweep need not check quality), and calls changed (when not nil)
// on every edit.
func NewPicker(none bool, changed func()) *Picker {
	p := &Picker{changed: changed}
	choices := []string{ProbeAgreement, ProbeGSM8K, ProbeMMLUPro, ProbeGPQA}
	if none {
		choices = append([]string{ProbeNone}, choices...)
	}
	p.Items = widget.NewEntry()
	p.Items.SetText(DefaultItems)
	p.Items.SetPlaceHolder("all")
	p.Items.OnChanged = func(string) { p.edited() }
	p.Probe = widget.NewSelect(choices, func(s string) {
		if probeNames[s] == "agreement" || s == ProbeNone {
			p.Items.Disable()
		} else {
			p.Items.Enable()
		}
		p.edited()
	})
	if none {
		p.Probe.SetSelected(ProbeNone)
	} else {
		p.Probe.SetSelected(ProbeGSM8K)
	}
	return p
}

func (p *Picker) edited() {
	if p.changed != nil {
		p.changed()
	}
}

// Row is the picker as one row: "Probe [choice] Items [n]".
func (p *Picker) Row() fyne.CanvasObject {
	return container.NewHBox(widget.NewLabel("Probe"), p.Probe, widget.NewLabel("Items"),
		container.NewGridWrap(fyne.NewSize(80, p.Items.MinSize().Height), p.Items))
}

// Set picks probe (ProbeAgreement, ProbeGSM8K, …) and the items a task
// probe asks ("" asks them all), as a user would.
func (p *Picker) Set(probe, items string) {
	p.Probe.SetSelected(probe)
	p.Items.SetText(items)
}

// Name is the chosen probe as session.NewQualityProbe reads it ("gsm8k:200",
// "agreement"), "" for None.
func (p *Picker) Name() (string, error) {
	if p.Probe.Selected == ProbeNone {
		return "", nil
	}
	name := probeNames[p.Probe.Selected]
	if name == "" {
		return "", errors.New("choose a probe")
	}
	n := strings.TrimSpace(p.Items.Text)
	if name == "agreement" || n == "" {
		return name, nil
	}
	if v, err := strconv.Atoi(n); err != nil || v < 1 {
		return "", fmt.Errorf("items must be a whole number of items to ask, such as 200, not %q (empty asks them all)", n)
	}
	return name + ":" + n, nil
}

// Show picks the choice that stands for a probe name ("gsm8k:200": GSM8K,
// 200 items; "": None), as a sweep file or Tune this states it. It reports
// whether the name was one of the choices.
func (p *Picker) Show(name string) bool {
	if name == "" {
		p.Probe.SetSelected(ProbeNone)
		return len(p.Probe.Options) > 0 && p.Probe.Options[0] == ProbeNone
	}
	kind, n, _ := strings.Cut(name, ":")
	for label, k := range probeNames {
		if k == kind {
			p.Set(label, n)
			return true
		}
	}
	return false
}
