package runview

import (
	"errors"
	"fmt"
	"strconv"

	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// planForm holds the plan editor's entries.
type planForm struct {
	// entries are the typed inputs by their rundoc.Field; each starts
	// empty, which reads as its default, and shows that default as its
	// placeholder.
	entries map[rundoc.Field]*widget.Entry
	// prompts picks the prompt policy (METHOD.md: Prompts).
	prompts *widget.Select
	// burst asks for burst cells after the matrix (METHOD.md: Burst
	// cells); their K is the entry of rundoc.FieldRequestCount, which
	// given alone runs them instead of the matrix, as the CLI's
	// --request-count does.
	burst *widget.Check
}

// Choices of the Prompts field, in the order shown: one word each, so the
// field's width shows them whole (Shared: one document per context, as
// published runs; Unique: one per stream; METHOD.md: Prompts).
const (
	promptsSharedChoice = "Shared"
	promptsUniqueChoice = "Unique"
)

// formFields are the typed inputs of the form, in the order shown (Prompts
// follows Max output).
var formFields = []rundoc.Field{rundoc.FieldContexts, rundoc.FieldConcurrency, rundoc.FieldPrefill,
	rundoc.FieldWindow, rundoc.FieldMaxOutput, rundoc.FieldKVCapacity, rundoc.FieldRequestCount}

func newPlanForm(onChange func()) *planForm {
	f := &planForm{entries: map[rundoc.Field]*widget.Entry{}}
	// The placeholders are the defaults as rundoc renders them, the CLI's
	// flag defaults too: an empty field is that default in both.
	def := rundoc.DefaultPlan().Input()
	for _, field := range formFields {
		e := widget.NewEntry()
		e.SetPlaceHolder(def.Text(field))
		e.OnChanged = func(string) { onChange() }
		f.entries[field] = e
	}
	// The server's own capacity, in one short word: the field is narrow at
	// 900 px, where "from the server" read "from the se…".
	f.entries[rundoc.FieldKVCapacity].SetPlaceHolder("reported")
	f.entries[rundoc.FieldRequestCount].SetPlaceHolder(fmt.Sprintf("%d × N", rundoc.BurstPerConcurrency))
	f.burst = widget.NewCheck("after the matrix", nil)
	// The callback is set after the first choice: the view is not built
	// yet when the form is.
	f.prompts = widget.NewSelect([]string{promptsSharedChoice, promptsUniqueChoice}, nil)
	f.prompts.SetSelected(promptsSharedChoice)
	f.prompts.OnChanged = func(string) { onChange() }
	f.burst.OnChanged = func(bool) { onChange() }
	return f
}

func (f *planForm) form() *widget.Form {
	form := widget.NewForm()
	for _, field := range formFields {
		form.Append(FieldLabel(field), f.entries[field])
		if field == rundoc.FieldMaxOutput {
			form.Append(FieldLabel(rundoc.FieldPrompts), f.prompts)
		}
		if field == rundoc.FieldKVCapacity {
			form.Append(FieldLabel(rundoc.FieldBurst), f.burst)
		}
	}
	return form
}

// plan reads the entries through rundoc.PlanInput, the CLI's reader too,
// which parses every field (the form parses none): the same text gives
// the same plan as the CLI's flag, and an empty field is the default in
// both. The error is one sentence naming the field by its label.
func (f *planForm) plan() (rundoc.Plan, error) {
	in := rundoc.PlanInput{Prompts: rundoc.PromptsShared}
	if f.prompts.Selected == promptsUniqueChoice {
		in.Prompts = rundoc.PromptsUnique
	}
	for field, e := range f.entries {
		in.Set(field, e.Text)
	}
	if f.burst.Checked {
		in.Burst = rundoc.BurstAfter
	}
	p, err := in.Plan()
	var fe *rundoc.FieldError
	if errors.As(err, &fe) {
		return p, errors.New(fe.In(FieldLabel(fe.Field)))
	}
	return p, err
}

// FieldLabel is the Run form's label of a plan input, which its errors
// name ("Max output must be…", where the CLI says "--max-output").
func FieldLabel(f rundoc.Field) string {
	if l, ok := map[rundoc.Field]string{
		rundoc.FieldContexts: "Contexts", rundoc.FieldConcurrency: "Concurrency", rundoc.FieldPrefill: "Prefill contexts",
		rundoc.FieldWindow: "Seconds per cell", rundoc.FieldMaxOutput: "Max output", rundoc.FieldPrompts: "Prompts",
		rundoc.FieldKVCapacity: "KV capacity", rundoc.FieldPrecision: "Precision", rundoc.FieldMaxDuration: "Longest window",
		rundoc.FieldBurst: "Burst cells", rundoc.FieldRequestCount: "Burst K", rundoc.FieldBurstLimit: "Burst limit",
	}[f]; ok {
		return l
	}
	return string(f)
}

// set fills the entries from p (used when preferences restore a plan),
// as rundoc renders it (Plan.Input); a field at its default is left
// empty, which reads as that default, as it did before it was saved.
func (f *planForm) set(p rundoc.Plan) {
	in, def := p.Input(), rundoc.DefaultPlan().Input()
	for field, e := range f.entries {
		text := in.Text(field)
		if text == def.Text(field) {
			text = ""
		}
		e.SetText(text)
	}
	f.burst.SetChecked(p.Burst == rundoc.BurstAfter)
	if p.PromptPolicy() == rundoc.PromptsUnique && p.Prompts != "" {
		f.prompts.SetSelected(promptsUniqueChoice)
	} else {
		f.prompts.SetSelected(promptsSharedChoice)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
