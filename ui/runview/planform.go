package runview

import (
	"fmt"
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

// plan reads the entries; the error is one sentence naming the field.
func (f *planForm) plan() (rundoc.Plan, error) {
	var p rundoc.Plan
	var err error
	if p.Contexts, err = rundoc.ParseTokenList(f.contexts.Text); err != nil {
		return p, fmt.Errorf("contexts: %w", err)
	}
	if p.Concurrency, err = parseInts(f.concurrency.Text); err != nil {
		return p, fmt.Errorf("concurrency: %w", err)
	}
	if strings.TrimSpace(f.prefill.Text) != "" {
		if p.PrefillContexts, err = rundoc.ParseTokenList(f.prefill.Text); err != nil {
			return p, fmt.Errorf("prefill contexts: %w", err)
		}
	}
	if err := readWindow(&p, f.seconds.Text); err != nil {
		return p, err
	}
	p.Prompts = rundoc.PromptsShared
	if f.prompts.Selected == promptsUniqueChoice {
		p.Prompts = rundoc.PromptsUnique
	}
	if p.MaxOutput, err = rundoc.ParseTokens(f.maxOutput.Text); err != nil || p.MaxOutput <= 0 {
		return p, fmt.Errorf("max output must be a positive token count, such as 8192")
	}
	if strings.TrimSpace(f.kvOverride.Text) != "" {
		if p.KVCapacityOverride, err = rundoc.ParseTokens(f.kvOverride.Text); err != nil || p.KVCapacityOverride <= 0 {
			return p, fmt.Errorf("KV capacity must be a token count such as 36864, or empty to use the server's")
		}
	}
	return p, nil
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

// readWindow sets the window method from the "Seconds per cell" entry:
// "auto" for adaptive windows (±1%, at most 30 s), or a fixed number of
// seconds.
func readWindow(p *rundoc.Plan, text string) error {
	text = strings.ToLower(strings.TrimSpace(text))
	if text == rundoc.WindowAuto {
		p.Window, p.Precision, p.DurationS = rundoc.WindowAuto, rundoc.DefaultPrecision, rundoc.DefaultDuration.Seconds()
		return nil
	}
	d, err := strconv.ParseFloat(text, 64)
	if err != nil || !(d > 0) {
		return fmt.Errorf("seconds per cell must be auto or a positive number, such as 30")
	}
	p.Window, p.DurationS = rundoc.WindowFixed, d
	return nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive whole number", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("give at least one level, such as 1, 2, 4")
	}
	return out, nil
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
