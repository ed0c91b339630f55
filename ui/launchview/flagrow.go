package launchview

import (
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/vllm"
)

// unsetChoice is the drop-down entry that leaves a flag to vLLM.
const unsetChoice = "(vLLM default)"

// Labels of a switch's check box: the state it is in.
const (
	checkOff = "off (vLLM's default)"
	checkOn  = "on"
)

// flagRow is the control of one catalog flag. value reports the flag's
// text and whether it is set; show puts a value into the control without
// firing the change callback (the form guards with its filling flag).
type flagRow struct {
	flag  vllm.Flag
	value func() (string, bool)
	show  func(v string, set bool)
	err   *widget.Label
	obj   fyne.CanvasObject
	// entry is the text field of numeric and text flags (nil otherwise).
	entry *widget.Entry
	// sl and scale are a numeric flag's slider (nil without a range).
	sl    *widget.Slider
	scale scale
}

// newFlagRow builds the widget the catalog names for f; changed is called
// after every user edit.
func newFlagRow(f vllm.Flag, changed func()) *flagRow {
	r := &flagRow{flag: f, err: widget.NewLabel("")}
	r.err.Importance = widget.DangerImportance
	r.err.Wrapping = fyne.TextWrapWord
	r.err.Hide()
	var ctl fyne.CanvasObject
	switch f.Widget {
	case vllm.WidgetToggle:
		ctl = r.toggle(changed)
	case vllm.WidgetDropdown:
		ctl = r.dropdown(changed)
	case vllm.WidgetIntSlider, vllm.WidgetFloatSlider:
		ctl = r.slider(changed)
	default:
		ctl = r.text(changed)
	}
	help := widget.NewLabel(f.Help)
	help.Wrapping = fyne.TextWrapWord
	help.Importance = widget.LowImportance
	name := widget.NewLabelWithStyle(f.Name, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	r.obj = container.NewVBox(container.NewBorder(nil, nil, name, nil, ctl), help, r.err)
	return r
}

// toggle: a check box for switches without a negation; flags that have a
// "--no-…" spelling get three states, because "off" and "vLLM's default"
// differ (prefix caching is on by default in V1). The three states are a
// drop-down: as radio buttons side by side they made the form 620 px wide,
// which squeezed the command previews in a small window.
func (r *flagRow) toggle(changed func()) fyne.CanvasObject {
	if r.flag.Negation == "" {
		// The label says the state: an unticked box labelled "on" read
		// as a switch that was on.
		c := widget.NewCheck(checkOff, nil)
		label := func() {
			c.Text = map[bool]string{true: checkOn, false: checkOff}[c.Checked]
			c.Refresh()
		}
		r.value = func() (string, bool) { return "true", c.Checked }
		r.show = func(v string, set bool) { c.SetChecked(set && v != "false"); label() }
		c.OnChanged = func(bool) { label(); changed() }
		return c
	}
	opts := []string{unsetChoice, "on", "off"}
	s := widget.NewSelect(opts, nil)
	s.SetSelected(unsetChoice)
	r.value = func() (string, bool) {
		switch s.Selected {
		case "on":
			return "true", true
		case "off":
			return "false", true
		}
		return "", false
	}
	r.show = func(v string, set bool) {
		switch {
		case !set:
			s.SetSelected(unsetChoice)
		case v == "false":
			s.SetSelected("off")
		default:
			s.SetSelected("on")
		}
	}
	s.OnChanged = func(string) { changed() }
	return s
}

// dropdown: the allowed values; open enums (whose list changes with every
// release) also take typed values.
func (r *flagRow) dropdown(changed func()) fyne.CanvasObject {
	opts := append([]string{unsetChoice}, r.flag.Allowed...)
	if r.flag.Open {
		e := widget.NewSelectEntry(opts)
		e.SetPlaceHolder(placeholder(r.flag))
		r.entry = &e.Entry
		r.value = func() (string, bool) {
			v := strings.TrimSpace(e.Text)
			return v, v != "" && v != unsetChoice
		}
		r.show = func(v string, set bool) { e.SetText(map[bool]string{true: v, false: ""}[set]) }
		e.OnChanged = func(string) { changed() }
		return e
	}
	s := widget.NewSelect(opts, nil)
	s.SetSelected(unsetChoice)
	r.value = func() (string, bool) { return s.Selected, s.Selected != "" && s.Selected != unsetChoice }
	r.show = func(v string, set bool) {
		if !set {
			v = unsetChoice
		}
		s.SetSelected(v)
	}
	s.OnChanged = func(string) { changed() }
	return s
}

// slider: a text field (which also takes "32k" or "auto") beside a slider
// over the flag's range. Ranges wider than 1000× use a log₂ scale, so
// --max-model-len's 256…1M range has as much travel at 4K as at 512K.
func (r *flagRow) slider(changed func()) fyne.CanvasObject {
	e := widget.NewEntry()
	// No scroller of its own: a number never outgrows the field, and
	// Fyne gives the mouse wheel to the scroller under the pointer, which
	// turned a wheel over the field into a sideways scroll of nothing, so
	// the flag list barely scrolled (issue 41).
	e.Scroll, e.Wrapping = container.ScrollNone, fyne.TextWrapOff
	e.SetPlaceHolder(placeholder(r.flag))
	r.entry = e
	r.value = func() (string, bool) { v := strings.TrimSpace(e.Text); return v, v != "" }
	r.show = func(v string, set bool) { e.SetText(map[bool]string{true: v, false: ""}[set]) }
	if !r.flag.HasRange {
		e.OnChanged = func(string) { changed() }
		return e
	}
	sc := newScale(r.flag)
	sl := widget.NewSlider(sc.lo, sc.hi)
	r.sl, r.scale = sl, sc
	sl.Step = sc.step
	if v, ok := sc.parse(""); ok {
		sl.SetValue(sc.position(v))
	}
	syncing := false
	sl.OnChanged = func(x float64) {
		if syncing {
			return
		}
		syncing = true
		e.SetText(sc.format(sc.value(x)))
		syncing = false
	}
	// The slider follows the text whoever sets it (typing, a preset, a
	// pasted command): an empty field puts it at vLLM's default, or at the
	// start of the range when vLLM derives the value, so it never shows a
	// value the command does not carry.
	e.OnChanged = func(s string) {
		if !syncing {
			if v, ok := sc.parse(s); ok {
				syncing = true
				sl.SetValue(sc.position(v))
				syncing = false
			}
		}
		changed()
	}
	e.Resize(fyne.NewSize(120, e.MinSize().Height))
	return container.NewGridWithColumns(2, e, sl)
}

func (r *flagRow) text(changed func()) fyne.CanvasObject {
	e := widget.NewEntry()
	e.SetPlaceHolder(placeholder(r.flag))
	r.entry = e
	r.value = func() (string, bool) { v := strings.TrimSpace(e.Text); return v, v != "" }
	r.show = func(v string, set bool) { e.SetText(map[bool]string{true: v, false: ""}[set]) }
	e.OnChanged = func(string) { changed() }
	return e
}

func placeholder(f vllm.Flag) string {
	if f.Default != "" {
		return "default " + f.Default
	}
	return "vLLM decides"
}

// scale maps slider positions to flag values.
type scale struct {
	flag           vllm.Flag
	log            bool
	lo, hi, step   float64
	valMin, valMax float64
}

func newScale(f vllm.Flag) scale {
	s := scale{flag: f, valMin: f.Min, valMax: f.Max}
	if f.MinExclusive && f.Step > 0 {
		s.valMin = f.Min + f.Step
	}
	if s.valMin >= 1 && s.valMax/s.valMin > 1000 {
		s.log, s.lo, s.hi, s.step = true, math.Log2(s.valMin), math.Log2(s.valMax), 0.25
		return s
	}
	s.lo, s.hi, s.step = s.valMin, s.valMax, f.Step
	if s.step <= 0 {
		s.step = (s.hi - s.lo) / 100
	}
	return s
}

// value is the flag value at slider position x, rounded to the flag's step.
func (s scale) value(x float64) float64 {
	v := x
	if s.log {
		v = math.Exp2(x)
	}
	if s.flag.Step > 0 {
		v = math.Round(v/s.flag.Step) * s.flag.Step
	}
	return math.Max(s.valMin, math.Min(s.valMax, v))
}

// position is the slider position showing value v.
func (s scale) position(v float64) float64 {
	if s.log {
		if v <= 0 {
			return s.lo
		}
		v = math.Log2(v)
	}
	return math.Max(s.lo, math.Min(s.hi, v))
}

// parse reads a field's text as a slider position's value: a number, a
// size with vLLM's suffixes ("32k", "32K"), or the default for an empty
// field; ok is false for text the slider cannot show ("auto").
func (s scale) parse(text string) (float64, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		if d, err := strconv.ParseFloat(s.flag.Default, 64); err == nil {
			return d, true
		}
		return s.valMin, true
	}
	if v, err := strconv.ParseFloat(text, 64); err == nil {
		return v, true
	}
	if n, ok := vllm.ParseInt(text, true); ok && n > 0 {
		return float64(n), true
	}
	return 0, false
}

// sliderValue is the value a slider row's slider shows (tests).
func (r *flagRow) sliderValue() (float64, bool) {
	if r.sl == nil {
		return 0, false
	}
	return r.scale.value(r.sl.Value), true
}

func (s scale) format(v float64) string {
	if s.flag.Type == vllm.KindInt {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
