package vllm

// Kind is the value type of a flag; it decides parsing and validation.
type Kind string

// Flag value kinds.
const (
	KindInt    Kind = "int"
	KindFloat  Kind = "float"
	KindBool   Kind = "bool"
	KindEnum   Kind = "enum"
	KindString Kind = "string"
	KindJSON   Kind = "json"
)

// Widget is the form control a user interface shows for a flag, so the UI can
// generate the launch form from Catalog() without knowing any flag.
type Widget string

// Form widgets.
const (
	WidgetIntSlider   Widget = "int_slider"
	WidgetFloatSlider Widget = "float_slider"
	WidgetToggle      Widget = "toggle"
	WidgetDropdown    Widget = "dropdown"
	WidgetText        Widget = "text"
	WidgetJSON        Widget = "json"
)

// Flag groups, in the order a form shows them.
const (
	GroupMemory      = "Memory and context"
	GroupScheduling  = "Scheduling"
	GroupModel       = "Model"
	GroupPerformance = "Performance"
	GroupServer      = "Server"
)

// Flag describes one `vllm serve` option. Values are kept as the strings the
// command line carries; Kind says how to read them.
type Flag struct {
	// Name is the long option, with dashes: "--max-model-len".
	Name string `json:"name"`
	// Aliases are other spellings vLLM accepts ("-tp").
	Aliases []string `json:"aliases,omitempty"`
	// Negation is the spelling that turns a boolean off
	// ("--no-enable-prefix-caching"); empty when vLLM has none.
	Negation string `json:"negation,omitempty"`
	Type     Kind   `json:"type"`
	Widget   Widget `json:"widget"`
	// Default is vLLM's default as text; empty means vLLM derives it (from
	// the model's config or the card).
	Default string `json:"default,omitempty"`
	// Allowed lists the values of an enum flag across all versions;
	// ValueSince narrows individual values to the versions that have them.
	Allowed    []string          `json:"allowed,omitempty"`
	ValueSince map[string]string `json:"value_since,omitempty"`
	// Open enums also accept values outside Allowed (validation warns),
	// because their list changes with every release.
	Open bool `json:"open,omitempty"`
	// Min and Max bound a numeric flag when HasRange is set; MinExclusive
	// makes the lower bound open ((0, 1] for --gpu-memory-utilization).
	// Step is the slider step.
	HasRange     bool    `json:"has_range,omitempty"`
	Min          float64 `json:"min,omitempty"`
	Max          float64 `json:"max,omitempty"`
	MinExclusive bool    `json:"min_exclusive,omitempty"`
	Step         float64 `json:"step,omitempty"`
	// Specials are non-numeric words a numeric flag also accepts ("auto").
	Specials []string `json:"specials,omitempty"`
	// Suffixes marks an int flag that accepts k/K/m/M/g/G ("32k").
	Suffixes bool   `json:"suffixes,omitempty"`
	Help     string `json:"help"`
	Group    string `json:"group"`
	// Since is the first vLLM version that has the flag and Until the first
	// that no longer has it; empty means "all versions we know".
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
	// Managed flags are set by RigBench for every launch (port, host, API
	// key); a form hides them and the launcher overrides them.
	Managed bool `json:"managed,omitempty"`
	// Secret values are replaced by a placeholder in every rendering meant
	// for people, logs or exports.
	Secret bool `json:"secret,omitempty"`
}

// TakesValue reports whether the flag is followed by a value on the command
// line (every kind but bool).
func (f Flag) TakesValue() bool { return f.Type != KindBool }

// Lookup finds a catalog flag by any of its spellings (name, alias or
// negation). negated is true when the spelling was the negation.
func Lookup(spelling string) (f Flag, negated, ok bool) {
	i, neg, ok := catalogIndex(spelling)
	if !ok {
		return Flag{}, false, false
	}
	return catalog[i], neg, true
}
