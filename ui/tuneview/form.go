package tuneview

// The Tune view's form: the flags to vary, the workload, the objective,
// read as tune.SpecInput (Input), the CLI's reader, and the sweep the app
// builds of it (Backend.Sweep), checked as the user types.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/qualityview"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/wording"
)

// fill puts a sweep's inputs back in the form.
func (v *View) fill(s tune.Spec) {
	v.dims = append([]tune.Dimension(nil), s.Dimensions...)
	v.SetMode(s.Mode)
	var ctxs, conc []string
	for _, c := range s.Plan.Contexts {
		ctxs = append(ctxs, rundoc.ContextLabel(c))
	}
	for _, n := range s.Plan.Concurrency {
		conc = append(conc, fmt.Sprint(n))
	}
	window := rundoc.WindowAuto
	if s.Plan.Window != rundoc.WindowAuto {
		window = (time.Duration(s.Plan.DurationS * float64(time.Second))).String()
	}
	constraint := ""
	if len(s.Constraints) > 0 {
		constraint = s.Constraints[0].String()
	}
	v.SetWorkload(strings.Join(ctxs, ","), strings.Join(conc, ","), window)
	v.SetObjective(s.Objective.String(), constraint)
	v.quality.Show(s.Quality)
	v.showDims()
}

// Prefill puts a sweep built from a run's advice (tune.FromAdvice) in the
// form: the advised flags to vary one at a time, the predicted cells and
// the objective. The run's own flags become the base over the Launch
// form's, so the sweep starts from what the run measured, and the verdict
// says whether each prediction held.
func (v *View) Prefill(s tune.Spec) {
	v.advised = &s
	v.fill(s)
	v.edited()
	if !v.startBtn.Disabled() {
		v.status.SetText("Filled in from the run's advice: Start measures each advised flag on its own, from the run's flags, and checks RigBench's predictions.")
	}
}

// buildInputs makes the form's widgets: what to vary, how, the workload,
// the objective and the constraint.
func (v *View) buildInputs() {
	v.unavailable = widget.NewLabel("")
	v.unavailable.Importance = widget.WarningImportance
	v.unavailable.Wrapping = fyne.TextWrapWord
	v.unavailable.Hide()
	v.cluster = widget.NewLabel("")
	v.cluster.Wrapping = fyne.TextWrapWord
	v.cluster.Hide()

	v.flag = widget.NewSelect(nil, func(name string) {
		v.values.SetText(strings.Join(displayValues(name, v.suggestions(name)), ","))
	})
	v.flag.PlaceHolder = "flag to vary"
	v.values = widget.NewEntry()
	v.values.SetPlaceHolder("values, e.g. auto,fp8")
	v.addBtn = widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), func() {
		if err := v.AddDimension(v.flag.Selected, v.values.Text); err != nil {
			v.status.SetText(err.Error())
		}
	})
	v.dimsBox = container.NewVBox()
	v.mode = widget.NewRadioGroup([]string{gridLabel, oneLabel}, func(string) { v.edited() })
	v.mode.SetSelected(gridLabel)
	v.mode.Required = true
	v.contexts = entry("1K,16K", v.edited)
	v.concurrency = entry("8,32", v.edited)
	// The CLI's defaults: windows that stop once total tok/s is known
	// within ±1%, and the objective at the largest cell.
	v.dur = entry(rundoc.WindowAuto, v.edited)
	v.objectiveChoices = tune.ObjectiveChoices
	v.objective = widget.NewSelectEntry(v.objectiveChoices)
	v.objective.SetText(string(tune.DefaultObjective))
	v.objective.OnChanged = func(string) { v.edited() }
	v.objective.SetPlaceHolder(strings.Join(tune.ObjectiveNames, ", "))
	v.constraint = entry("", v.edited)
	v.constraint.SetPlaceHolder("optional, e.g. ttft_p90<=2s")
	v.quality = qualityview.NewPicker(true, v.edited)
	v.summary = widget.NewLabel("")
	v.summary.Wrapping = fyne.TextWrapWord

}

// dimsText names what a sweep varies ("--kv-cache-dtype auto, fp8 × …").
func dimsText(ds []tune.Dimension) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.Flag+" "+strings.Join(displayValues(d.Flag, d.Values), ", "))
	}
	return strings.Join(parts, " × ")
}

func entry(text string, changed func()) *widget.Entry {
	e := widget.NewEntry()
	e.SetText(text)
	e.OnChanged = func(string) { changed() }
	return e
}

// showLine shows text in l, and hides l when there is none.
func showLine(l *widget.Label, text string) {
	l.SetText(text)
	l.Hidden = text == ""
	l.Refresh()
}

// suggestions are the values the form offers for a dimension: the front
// end's (Backend.Suggest: a cluster's splits and interface), else the flag
// catalog's; none for an interface the front end does not know (only the
// rigs' `ip link` knows theirs).
func (v *View) suggestions(name string) []string {
	if v.b.Suggest != nil {
		if s := v.b.Suggest(name); s != nil {
			return s
		}
	}
	return vllm.Suggestions(name)
}

// displayValues shows booleans as on/off.
func displayValues(name string, vals []string) []string {
	if name == vllm.SpeculativeFlag {
		out := make([]string, len(vals))
		for i, x := range vals {
			out[i] = vllm.SpeculativeLabel(x)
		}
		return out
	}
	f, _, ok := vllm.Lookup(name)
	if !ok || f.Type != vllm.KindBool {
		return vals
	}
	out := make([]string, len(vals))
	for i, x := range vals {
		out[i] = map[string]string{"true": "on", "false": "off"}[x]
	}
	return out
}

// AddDimension adds a flag and its values ("auto,fp8"; on/off for
// switches), replacing the flag's earlier values.
func (v *View) AddDimension(flag, values string) error {
	if flag == "" {
		return errors.New("pick a flag to vary first")
	}
	d, err := tune.ParseDimension(flag + "=" + values)
	if err != nil {
		return err
	}
	for i := range v.dims {
		if v.dims[i].Flag == d.Flag {
			v.dims[i] = d
			v.showDims()
			return nil
		}
	}
	v.dims = append(v.dims, d)
	v.showDims()
	return nil
}

func (v *View) showDims() {
	v.dimsBox.RemoveAll()
	for i, d := range v.dims {
		i := i
		label := widget.NewLabel(d.Flag + " " + strings.Join(displayValues(d.Flag, d.Values), ", "))
		rm := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
			v.dims = append(v.dims[:i:i], v.dims[i+1:]...)
			v.showDims()
		})
		v.dimsBox.Add(container.NewBorder(nil, nil, nil, rm, label))
	}
	v.edited()
	v.left.Refresh()
}

// SetMode picks grid or one-at-a-time.
func (v *View) SetMode(m tune.Mode) {
	if m == tune.OneAtATime {
		v.mode.SetSelected(oneLabel)
	} else {
		v.mode.SetSelected(gridLabel)
	}
}

// SetWorkload sets the cells and the window ("1K,16K", "8,32", "30s").
func (v *View) SetWorkload(contexts, concurrency, window string) {
	v.contexts.SetText(contexts)
	v.concurrency.SetText(concurrency)
	v.dur.SetText(window)
}

// Workload is the form's cells and window, as SetWorkload takes them.
func (v *View) Workload() (contexts, concurrency, window string) {
	return v.contexts.Text, v.concurrency.Text, v.dur.Text
}

// ObjectiveChoices are the choices the Objective field offers.
func (v *View) ObjectiveChoices() []string { return slices.Clone(v.objectiveChoices) }

// PickObjective picks choice in the Objective field's drop-down, as a user
// would; false when it is not offered.
func (v *View) PickObjective(choice string) bool {
	if !slices.Contains(v.objectiveChoices, choice) {
		return false
	}
	v.objective.SetText(choice) // what the drop-down's item does
	return true
}

// Objective is the form's objective and constraint.
func (v *View) Objective() (objective, constraint string) { return v.objective.Text, v.constraint.Text }

// SetObjective sets the objective and the constraint (as the CLI takes
// them: "total-tok-s@16Kx32", "ttft_p90<=2s" or "").
func (v *View) SetObjective(objective, constraint string) {
	v.objective.SetText(objective)
	v.constraint.SetText(constraint)
}

// Input is the form as tune.SpecInput takes it, the text of each field
// (the CLI's --vary, --contexts, --concurrency, --duration, --objective
// and --constraint fill the same fields), with the prefilled advice. The
// app adds the target.
func (v *View) Input() tune.SpecInput {
	in := tune.SpecInput{Mode: tune.Grid, Contexts: v.contexts.Text, Concurrency: v.concurrency.Text, Window: v.dur.Text,
		Objective: v.objective.Text, Constraints: []string{v.constraint.Text}, Advice: v.advised}
	if v.mode.Selected == oneLabel {
		in.Mode = tune.OneAtATime
	}
	for _, d := range v.dims {
		in.Vary = append(in.Vary, d.Text())
	}
	in.Quality, _ = v.quality.Name() // a bad item count is sweep's error
	return in
}

// SetQuality picks the sweep's quality check (qualityview.ProbeNone,
// ProbeGSM8K, …) and the items a task probe asks, as a user would.
func (v *View) SetQuality(probe, items string) { v.quality.Set(probe, items) }

// sweep is the runner of the form's sweep (Backend.Sweep), or why there
// is none.
func (v *View) sweep() (*tune.Runner, error) {
	if v.b.Unavailable != nil {
		if why := v.b.Unavailable(); why != "" {
			return nil, errors.New(why)
		}
	}
	if v.b.Sweep == nil {
		return nil, errors.New("there is no target to run a sweep on")
	}
	if _, err := v.quality.Name(); err != nil {
		return nil, fmt.Errorf("quality check: %w", err)
	}
	return v.b.Sweep(v.Input())
}

// edited recomputes the summary: variants and estimated wall time, or
// what is missing.
func (v *View) edited() {
	if v.summary == nil || v.startBtn == nil {
		return // still building
	}
	why := ""
	if v.b.Unavailable != nil {
		why = v.b.Unavailable()
	}
	showLine(v.unavailable, why)
	running := v.Running()
	r, err := v.sweep()
	if err != nil {
		if why == "" {
			v.summary.SetText(wordErr(err))
		} else {
			v.summary.SetText("")
		}
		v.startBtn.Disable()
		if !running && v.doc == nil && v.spec == nil {
			v.status.SetText("Add a flag to vary and the cells to measure, then Start.")
		}
		return
	}
	msg := fmt.Sprintf("%s, about %s", wording.Count(len(r.Spec.Variants()), "variant"), rundoc.ShortDuration(r.EstimateSweep()))
	if v.b.Target != nil {
		msg += ", " + v.b.Target()
	}
	v.summary.SetText(msg + ".")
	if !running {
		v.startBtn.Enable()
		if v.doc == nil && v.spec == nil {
			v.status.SetText("Ready: Start launches and measures each variant; every one is saved in History.")
		}
	}
}

// fieldLabels are the form's names of a sweep's inputs.
var fieldLabels = map[rundoc.Field]string{
	rundoc.FieldContexts: "Contexts", rundoc.FieldConcurrency: "Concurrency", rundoc.FieldWindow: "Window",
	tune.FieldVary: "Vary", tune.FieldObjective: "Objective", tune.FieldConstraint: "Constraint",
}

// wordErr words a sweep's error for the view: a field's error with its
// label here, or the Launch page's for the target's (target.FieldLabel).
func wordErr(err error) string {
	var fe *rundoc.FieldError
	if errors.As(err, &fe) {
		if l, ok := fieldLabels[fe.Field]; ok {
			return wording.Sentence(fe.In(l))
		}
		return target.Text(err)
	}
	if errors.Is(err, tune.ErrNothingToVary) {
		// The engine's sentence, with the app's way to give a flag (the
		// CLI adds its --vary).
		return "Nothing to vary yet: pick a flag under Vary, give its values and press Add."
	}
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
