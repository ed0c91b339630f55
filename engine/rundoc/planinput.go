package rundoc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The limits of a plan's inputs, written once for every front end.
const (
	// MaxPrecision is the loosest adaptive precision (±50%).
	MaxPrecision = 0.5
	// MaxKVCapacity is the largest KV-capacity override, in tokens.
	MaxKVCapacity = math.MaxInt32
)

// Field names one input of a user action (a plan here; a target in
// engine/session, a sweep in engine/tune), spelled as the CLI's flag, so
// that each front end words an error in its own terms: "--concurrency" in
// the CLI, "Concurrency" in the app.
type Field string

// The inputs of a plan.
const (
	FieldContexts    Field = "contexts"
	FieldConcurrency Field = "concurrency"
	FieldPrefill     Field = "prefill"
	FieldWindow      Field = "duration"
	FieldPrecision   Field = "precision"
	FieldMaxDuration Field = "max-duration"
	FieldPrompts     Field = "prompts"
	FieldMaxOutput   Field = "max-output"
	FieldKVCapacity  Field = "kv-capacity"
	// FieldBurst, FieldRequestCount and FieldBurstLimit ask for burst
	// cells (burst.go).
	FieldBurst        Field = "burst"
	FieldRequestCount Field = "request-count"
	FieldBurstLimit   Field = "burst-limit"
	// FieldAcceptLenRef is the reference acceptance length of drafting
	// cells' projected tok/s (spec.go).
	FieldAcceptLenRef Field = "accept-len-ref"
)

// PlanFields are the inputs of a plan, in the order the CLI lists them.
// Each Field is also the CLI's flag name ("--max-output"), so a front end
// that keeps its inputs by field fills a PlanInput with Set.
var PlanFields = []Field{FieldContexts, FieldConcurrency, FieldPrefill, FieldWindow, FieldPrecision,
	FieldMaxDuration, FieldPrompts, FieldMaxOutput, FieldKVCapacity, FieldBurst, FieldRequestCount, FieldBurstLimit, FieldAcceptLenRef}

// FieldError is a plan input that cannot be read. Msg reads after the
// field's name, after a space ("must be a positive token count…") or
// directly when it starts with a colon (": bad token \"x\""); Error joins
// it to the field's plain name, and each front end to its own.
type FieldError struct {
	Field Field
	Msg   string
}

func (e *FieldError) Error() string { return e.In(string(e.Field)) }

// In words the error for the front end's name of the field.
func (e *FieldError) In(name string) string {
	if strings.HasPrefix(e.Msg, ":") {
		return name + e.Msg
	}
	return name + " " + e.Msg
}

// PlanInput is a plan as the user typed it, in either front end: the CLI's
// flag values or the app's form fields, one string each. An empty field
// takes the default (DefaultPlan); Plan reads them all by one set of rules,
// so the same text gives the same plan, or the same FieldError, whichever
// front end it was typed in.
type PlanInput struct {
	// Contexts are the decode contexts ("0,16K,max"); empty: the defaults,
	// trimmed at run time to what the server holds (Plan.TrimContexts);
	// "none" for a prefill-only run.
	Contexts string
	// Concurrency is the levels ("1,2,4"); whole numbers only.
	Concurrency string
	// Prefill is the prefill contexts; "none" (or 0, -) for none.
	Prefill string
	// Window is "auto" or a fixed length: a duration ("30s") or a number
	// of seconds ("30", the app's "Seconds per cell").
	Window string
	// Precision ("1%" or "1") and MaxDuration ("30s") tune an auto window;
	// they are refused with a fixed one.
	Precision, MaxDuration string
	// Prompts is the prompt policy, "shared" or "unique".
	Prompts string
	// MaxOutput is M in tokens ("8192", "8K").
	MaxOutput string
	// KVCapacity overrides the server's KV capacity in tokens; empty: the
	// server's.
	KVCapacity string
	// Burst asks for burst cells after the sustained matrix: on ("true",
	// "on", "yes", "after", as a bare --burst and the app's checkbox
	// give it) or off ("", "false", …); "only" runs them instead of it.
	Burst string
	// RequestCount is K of every burst cell ("64"); empty: 4 × N. Given
	// without Burst on, burst cells run instead of the sustained matrix.
	RequestCount string
	// BurstLimit bounds each burst ("30m", or seconds); empty: the default.
	BurstLimit string
	// AcceptLenRef is the tokens per step at which drafting cells project
	// their tok/s ("3"); empty: none (Plan.AcceptLenRef).
	AcceptLenRef string
}

// field is the text of f in the input; nil for a field that is not a
// plan's.
func (in *PlanInput) field(f Field) *string {
	switch f {
	case FieldContexts:
		return &in.Contexts
	case FieldConcurrency:
		return &in.Concurrency
	case FieldPrefill:
		return &in.Prefill
	case FieldWindow:
		return &in.Window
	case FieldPrecision:
		return &in.Precision
	case FieldMaxDuration:
		return &in.MaxDuration
	case FieldPrompts:
		return &in.Prompts
	case FieldMaxOutput:
		return &in.MaxOutput
	case FieldKVCapacity:
		return &in.KVCapacity
	case FieldBurst:
		return &in.Burst
	case FieldRequestCount:
		return &in.RequestCount
	case FieldBurstLimit:
		return &in.BurstLimit
	case FieldAcceptLenRef:
		return &in.AcceptLenRef
	}
	return nil
}

// Set sets the text of field f, as typed: the way a front end that keeps
// its inputs by field (the CLI's flags, the app's entries) fills the input,
// so that neither parses a field itself. A Field not in PlanFields is
// ignored.
func (in *PlanInput) Set(f Field, text string) {
	if p := in.field(f); p != nil {
		*p = text
	}
}

// Text is the text of field f ("" for a Field not in PlanFields).
func (in PlanInput) Text(f Field) string {
	if p := in.field(f); p != nil {
		return *p
	}
	return ""
}

// Input is the plan as a user types it, which Plan reads back as p: the
// one rendering of a plan's values as text, so the CLI's flag defaults and
// help, and the app's placeholders and restored fields, show
// DefaultPlan().Input() rather than a copy of the defaults. Lists are
// joined with "," (a shell word); a plan whose contexts are the defaults
// trimmed to the server (TrimContexts) has empty Contexts, which is how
// that is typed; an empty list is "none"; a fixed window is its seconds
// ("30", which the app's "Seconds per cell" and the CLI's --duration both
// take); Precision and MaxDuration are set only for an auto window.
func (p Plan) Input() PlanInput {
	in := PlanInput{Contexts: tokenListText(p.Contexts), Concurrency: intListText(p.Concurrency),
		Prefill: tokenListText(p.PrefillContexts), Prompts: p.Prompts, MaxOutput: strconv.Itoa(p.MaxOutput)}
	if p.TrimContexts {
		in.Contexts = ""
	}
	if p.Adaptive() {
		in.Window = WindowAuto
		in.Precision = strconv.FormatFloat(100*p.Precision, 'g', 10, 64) + "%"
		in.MaxDuration = p.Duration().String()
	} else {
		in.Window = strconv.FormatFloat(p.DurationS, 'f', -1, 64)
	}
	if p.KVCapacityOverride > 0 {
		in.KVCapacity = strconv.Itoa(p.KVCapacityOverride)
	}
	p.burstInput(&in)
	if p.AcceptLenRef > 0 {
		in.AcceptLenRef = strconv.FormatFloat(p.AcceptLenRef, 'f', -1, 64)
	}
	return in
}

// tokenListText is a list of token counts as typed ("0,16K,max"); "none"
// for an empty one.
func tokenListText(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = ContextLabel(x)
	}
	return strings.Join(parts, ",")
}

// intListText is a list of whole numbers as typed ("1,2,4").
func intListText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// Plan reads the input. It checks what can be checked without a server
// (Validate with max_model_len unknown), so no rule slips past to fail once
// the server is up; an error naming one input is a *FieldError.
func (in PlanInput) Plan() (Plan, error) {
	p := DefaultPlan()
	var err error
	switch c := strings.ToLower(strings.TrimSpace(in.Contexts)); c {
	case "":
		p.TrimContexts = true
	case "none", "-":
		p.Contexts = nil // a prefill-only run
	default:
		if p.Contexts, err = ParseTokenList(in.Contexts); err != nil {
			return p, &FieldError{FieldContexts, lowerErr(err)}
		}
	}
	if strings.TrimSpace(in.Concurrency) != "" {
		if p.Concurrency, err = parseConcurrency(in.Concurrency); err != nil {
			return p, err
		}
	}
	switch pre := strings.ToLower(strings.TrimSpace(in.Prefill)); pre {
	case "":
	case "none", "0", "-":
		p.PrefillContexts = nil
	default:
		if p.PrefillContexts, err = ParseTokenList(in.Prefill); err != nil {
			return p, &FieldError{FieldPrefill, lowerErr(err)}
		}
	}
	if err := in.window(&p); err != nil {
		return p, err
	}
	if p.Prompts, err = ParsePromptPolicy(in.Prompts); err != nil {
		return p, &FieldError{FieldPrompts, lowerErr(err)}
	}
	if t := strings.TrimSpace(in.MaxOutput); t != "" {
		if p.MaxOutput, err = ParseTokens(t); err != nil || p.MaxOutput < 1 || p.MaxOutput == ContextMax {
			if n, perr := strconv.ParseFloat(t, 64); perr == nil && n > MaxContextTokens {
				return p, &FieldError{FieldMaxOutput, fmt.Sprintf("must be at most %d tokens (no model generates more), e.g. 8192, not %s", MaxContextTokens, in.MaxOutput)}
			}
			return p, &FieldError{FieldMaxOutput, fmt.Sprintf("must be at least 1 token, e.g. 8192, not %s", in.MaxOutput)}
		}
		if p.MaxOutput > MaxContextTokens {
			return p, &FieldError{FieldMaxOutput, fmt.Sprintf("must be at most %d tokens (no model generates more), e.g. 8192, not %s", MaxContextTokens, in.MaxOutput)}
		}
	}
	if t := strings.TrimSpace(in.KVCapacity); t != "" {
		n, err := ParseTokens(t)
		if err != nil || n < 1 || n == ContextMax || n > MaxKVCapacity {
			return p, &FieldError{FieldKVCapacity, fmt.Sprintf("must be a positive number of tokens up to %d, e.g. 36864, or empty for the server's, not %q", MaxKVCapacity, in.KVCapacity)}
		}
		p.KVCapacityOverride = n
	}
	if err := in.burst(&p); err != nil {
		return p, err
	}
	if t := strings.TrimSpace(in.AcceptLenRef); t != "" {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 1 && v <= MaxAcceptLength) {
			return p, &FieldError{FieldAcceptLenRef, fmt.Sprintf("must be the tokens a drafted step yields, from 1 to %d (such as 3), or empty for none, not %q", MaxAcceptLength, in.AcceptLenRef)}
		}
		p.AcceptLenRef = v
	}
	// "max" stands for a length not known yet: checked as 0 (Resolve
	// would drop it, and a plan of only "max" would look empty).
	q := p
	q.Contexts, q.PrefillContexts = maxAsZero(p.Contexts), maxAsZero(p.PrefillContexts)
	if err := q.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// window sets the plan's window method from Window, Precision and
// MaxDuration.
func (in PlanInput) window(p *Plan) error {
	w := strings.ToLower(strings.TrimSpace(in.Window))
	if w != "" && w != WindowAuto {
		fixed, err := time.ParseDuration(w)
		if secs, nerr := strconv.ParseFloat(w, 64); nerr == nil {
			fixed, err = time.Duration(secs*float64(time.Second)), nil
		}
		if err != nil || fixed < MinDuration || fixed > MaxDuration {
			return &FieldError{FieldWindow, fmt.Sprintf("must be auto or a length from %s to 1h, e.g. 30s, not %s: a shorter window holds no whole request, a longer one holds the run for hours per cell", MinDuration, in.Window)}
		}
		for _, f := range []struct {
			field Field
			text  string
		}{{FieldPrecision, in.Precision}, {FieldMaxDuration, in.MaxDuration}} {
			if strings.TrimSpace(f.text) != "" {
				return &FieldError{f.field, fmt.Sprintf("applies only to an auto window; a fixed window of %s gives every cell that length", in.Window)}
			}
		}
		p.Window, p.Precision, p.DurationS = WindowFixed, 0, fixed.Seconds()
		return nil
	}
	p.Window, p.Precision, p.DurationS = WindowAuto, DefaultPrecision, DefaultDuration.Seconds()
	if t := strings.TrimSpace(in.Precision); t != "" {
		pct, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
		if err != nil || !(pct > 0 && pct <= 100*MaxPrecision) {
			return &FieldError{FieldPrecision, fmt.Sprintf("must be a percentage above 0 and at most %g, e.g. 1%%, not %q", 100*MaxPrecision, in.Precision)}
		}
		p.Precision = pct / 100
	}
	if t := strings.TrimSpace(in.MaxDuration); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d < MinAutoWindow || d > MaxDuration {
			return &FieldError{FieldMaxDuration, fmt.Sprintf("must be from %s (the shortest adaptive window) to 1h, not %q", MinAutoWindow, in.MaxDuration)}
		}
		p.DurationS = d.Seconds()
	}
	return nil
}

// parseConcurrency reads the levels: positive whole numbers only, since a
// level is a count of requests, not of tokens (no K suffix, no max).
func parseConcurrency(s string) ([]int, error) {
	bad := &FieldError{FieldConcurrency, fmt.Sprintf("%q: each level must be a whole number from 1 to %d, e.g. 1,2,4,8", s, MaxConcurrency)}
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > MaxConcurrency {
			return nil, bad
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, bad
	}
	return out, nil
}

// maxAsZero returns cs with ContextMax replaced by 0.
func maxAsZero(cs []int) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		if c != ContextMax {
			out[i] = c
		}
	}
	return out
}

// lowerErr is err's text as the tail of a sentence about a field.
func lowerErr(err error) string {
	s := err.Error()
	if s != "" {
		s = strings.ToLower(s[:1]) + s[1:]
	}
	return ": " + s
}
