package runview

import (
	"errors"
	"strconv"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Defaults of the plan editor, from METHOD.md.
const (
	DefaultContexts    = "0, 16K, 32K, 64K, 128K, max"
	DefaultConcurrency = "1, 2, 4, 8, 16, 32, 64, 128"
	DefaultPrefill     = "8K, 16K, 32K, 64K, 128K"
	DefaultSeconds     = rundoc.WindowAuto
	DefaultMaxOutput   = "8192"
)

// planForm holds the plan editor's entries.
type planForm struct {
	contexts, concurrency, prefill, seconds, maxOutput, kvOverride *widget.Entry
	// prompts picks the prompt policy (METHOD.md: Prompts).
	prompts *widget.Select
}

// Choices of the Prompts field, in the order shown: one word each, so the
// field's width shows them whole (Shared: one document per context, as
// published runs; Unique: one per stream; METHOD.md: Prompts).
const (
	promptsSharedChoice = "Shared"
	promptsUniqueChoice = "Unique"
)

func newPlanForm(onChange func()) *planForm {
	f := &planForm{
		contexts: entry(DefaultContexts), concurrency: entry(DefaultConcurrency), prefill: entry(DefaultPrefill),
		seconds: entry(DefaultSeconds), maxOutput: entry(DefaultMaxOutput), kvOverride: entry(""),
	}
	// The callback is set after the first choice: the view is not built
	// yet when the form is.
	f.prompts = widget.NewSelect([]string{promptsSharedChoice, promptsUniqueChoice}, nil)
	f.prompts.SetSelected(promptsSharedChoice)
	f.prompts.OnChanged = func(string) { onChange() }
	// One short word: the field is narrow at 900 px, where "from the
	// server" read "from the se…".
	f.kvOverride.SetPlaceHolder("reported")
	f.prefill.SetPlaceHolder("none")
	for _, e := range []*widget.Entry{f.contexts, f.concurrency, f.prefill, f.seconds, f.maxOutput, f.kvOverride} {
		e.OnChanged = func(string) { onChange() }
	}
	return f
}

func entry(text string) *widget.Entry {
	e := widget.NewEntry()
	e.SetText(text)
	return e
}

func (f *planForm) form() *widget.Form {
	return widget.NewForm(
		widget.NewFormItem("Contexts", f.contexts),
		widget.NewFormItem("Concurrency", f.concurrency),
		widget.NewFormItem("Prefill contexts", f.prefill),
		widget.NewFormItem("Seconds per cell", f.seconds),
		widget.NewFormItem("Max output", f.maxOutput),
		widget.NewFormItem("Prompts", f.prompts),
		widget.NewFormItem("KV capacity", f.kvOverride),
	)
}

// plan reads the entries through rundoc.PlanInput, the CLI's reader too;
// the error is one sentence naming the field by its label. An empty
// Contexts or Prefill box means none of that phase (the CLI's flag left
// out means its defaults).
func (f *planForm) plan() (rundoc.Plan, error) {
	orNone := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "none"
		}
		return s
	}
	in := rundoc.PlanInput{Contexts: orNone(f.contexts.Text), Concurrency: f.concurrency.Text,
		Prefill: orNone(f.prefill.Text), Window: f.seconds.Text, MaxOutput: f.maxOutput.Text,
		KVCapacity: f.kvOverride.Text, Prompts: rundoc.PromptsShared}
	if f.prompts.Selected == promptsUniqueChoice {
		in.Prompts = rundoc.PromptsUnique
	}
	if strings.TrimSpace(in.Concurrency) == "" {
		return rundoc.Plan{}, errors.New("Concurrency is empty: give levels such as 1,2,4,8")
	}
	if strings.TrimSpace(in.MaxOutput) == "" {
		return rundoc.Plan{}, errors.New("Max output is empty: give a token count such as 8192")
	}
	p, err := in.Plan()
	var fe *rundoc.FieldError
	if errors.As(err, &fe) {
		return p, errors.New(fe.In(fieldLabel(fe.Field)))
	}
	return p, err
}

// fieldLabel is the form's label of a plan input, for its errors.
func fieldLabel(f rundoc.Field) string {
	if l, ok := map[rundoc.Field]string{
		rundoc.FieldContexts: "Contexts", rundoc.FieldConcurrency: "Concurrency", rundoc.FieldPrefill: "Prefill contexts",
		rundoc.FieldWindow: "Seconds per cell", rundoc.FieldMaxOutput: "Max output", rundoc.FieldPrompts: "Prompts",
		rundoc.FieldKVCapacity: "KV capacity", rundoc.FieldPrecision: "Precision", rundoc.FieldMaxDuration: "Longest window",
	}[f]; ok {
		return l
	}
	return string(f)
}

// set fills the entries from p (used when preferences restore a plan).
func (f *planForm) set(p rundoc.Plan) {
	f.contexts.SetText(labels(p.Contexts))
	f.concurrency.SetText(joinInts(p.Concurrency))
	f.prefill.SetText(labels(p.PrefillContexts))
	if p.Adaptive() {
		f.seconds.SetText(rundoc.WindowAuto)
	} else {
		f.seconds.SetText(strconv.FormatFloat(p.DurationS, 'f', -1, 64))
	}
	f.maxOutput.SetText(strconv.Itoa(p.MaxOutput))
	if p.PromptPolicy() == rundoc.PromptsUnique && p.Prompts != "" {
		f.prompts.SetSelected(promptsUniqueChoice)
	} else {
		f.prompts.SetSelected(promptsSharedChoice)
	}
	if p.KVCapacityOverride > 0 {
		f.kvOverride.SetText(strconv.Itoa(p.KVCapacityOverride))
	} else {
		f.kvOverride.SetText("")
	}
}

func labels(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = rundoc.ContextLabel(x)
	}
	return strings.Join(parts, ", ")
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

func itoa(n int) string { return strconv.Itoa(n) }
