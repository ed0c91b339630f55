package rundoc

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Defaults of METHOD.md.
var (
	DefaultContexts        = []int{0, 16384, 32768, 65536, 131072, ContextMax}
	DefaultConcurrency     = []int{1, 2, 4, 8, 16, 32, 64, 128}
	DefaultPrefillContexts = []int{8192, 16384, 32768, 65536, 131072}
)

// Default window length D (the longest an adaptive window lasts), max
// output M and the precision of adaptive windows.
const (
	DefaultDuration  = 30 * time.Second
	DefaultMaxOutput = 8192
	DefaultPrecision = 0.01
)

// Window methods of Plan.Window.
const (
	// WindowFixed: every decode window lasts D (the seed tool's method).
	WindowFixed = "fixed"
	// WindowAuto: a decode window stops once total tok/s is known within
	// Precision, after at least MinAutoWindow, at most D; prefill cells
	// repeat until prompt tok/s is known within PrefillPrecision.
	WindowAuto = "auto"
)

// Window openings of Plan.WindowOpens (METHOD.md: Decode cells, step 3).
const (
	// OpensSteady: the window opens once the cell is in steady state
	// (every stream has a token, nothing waits, the server runs ≥ N, held
	// SteadyHold), as the seed tool opens it. "" reads as OpensFirstSend:
	// runs written before steady-state windows.
	OpensSteady = "steady_state"
	// OpensFirstSend: the window opened at the first send, so its figures
	// include the ramp to N running streams (runs before steady state).
	OpensFirstSend = "first_send"
)

// Prompt policies of Plan.Prompts (METHOD.md: Prompts).
const (
	// PromptsShared: one document per context, shared by every stream and
	// cell of that context (the seed tool's policy; the default).
	PromptsShared = "shared"
	// PromptsUnique: a document of its own per stream. "" reads as
	// PromptsUnique: runs written before the policy was a choice.
	PromptsUnique = "unique"
)

// Steady-state detection (METHOD.md: Decode cells, step 3).
const (
	// SteadyHold is how long the readiness conditions must hold without a
	// break before the window opens.
	SteadyHold = 3 * time.Second
	// SteadyEarliest is the earliest the window opens after the first send.
	SteadyEarliest = 2 * time.Second
	// SteadyCheck is how often readiness is checked, in the card's time.
	SteadyCheck = time.Second
)

// SteadyLimit is the longest a cell's ramp may last before its window
// opens anyway (warmup_timed_out): 60 s for contexts up to 32K, 120 s up to
// 64K, 180 s beyond, in the card's time (the seed tool's limits).
func SteadyLimit(context int) time.Duration {
	switch {
	case context <= 32768:
		return 60 * time.Second
	case context <= 65536:
		return 120 * time.Second
	default:
		return 180 * time.Second
	}
}

// Opening returns how the plan's decode windows open (OpensSteady or
// OpensFirstSend), reading "" as the older first-send method.
func (p Plan) Opening() string {
	if p.WindowOpens == "" {
		return OpensFirstSend
	}
	return p.WindowOpens
}

// ParsePromptPolicy reads a prompt policy as a user types it ("shared",
// "Unique "); "" is the default, shared.
func ParsePromptPolicy(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "", PromptsShared:
		return PromptsShared, nil
	case PromptsUnique:
		return PromptsUnique, nil
	}
	return "", fmt.Errorf("the prompt policy must be %q (one document per context, the seed tool's) or %q (one per stream), not %q", PromptsShared, PromptsUnique, s)
}

// MethodLabel is a short name of how decode was measured, for headers:
// "steady-state windows · shared prompts"; "" for a plan that records
// neither (older runs, CSV imports), whose figures say nothing more.
func (p Plan) MethodLabel() string {
	var parts []string
	switch p.WindowOpens {
	case OpensSteady:
		parts = append(parts, "steady-state windows")
	case OpensFirstSend:
		parts = append(parts, "windows from the first send")
	}
	if p.Prompts != "" {
		parts = append(parts, p.Prompts+" prompts")
	}
	return strings.Join(parts, " · ")
}

// OpeningLabel names how the plan's decode windows open, for people:
// "at steady state" or "at the first send (ramp included)".
//
// A plan without the field is a run measured before steady-state windows
// (they opened at the first send) or a file that does not say (a CSV), so
// its label says both.
func (p Plan) OpeningLabel() string {
	switch p.WindowOpens {
	case OpensSteady:
		return "at steady state"
	case OpensFirstSend:
		return "at the first send (ramp included)"
	}
	return "not recorded (RigBench's runs before steady state: at the first send)"
}

// PromptsLabel names the plan's prompt policy for people.
func (p Plan) PromptsLabel() string {
	switch p.Prompts {
	case PromptsShared:
		return "shared (one per context)"
	case PromptsUnique:
		return "unique (one per stream)"
	}
	return "not recorded (RigBench's runs before the choice: unique)"
}

// PromptPolicy returns the plan's prompt policy, reading "" as the older
// unique-prefix policy.
func (p Plan) PromptPolicy() string {
	if p.Prompts == "" {
		return PromptsUnique
	}
	return p.Prompts
}

// Bounds of adaptive measurement (METHOD.md: Adaptive windows).
const (
	// MinAutoWindow is the shortest adaptive decode window, in the card's
	// time.
	MinAutoWindow = 5 * time.Second
	// PrefillPrecision is the relative half-width at which prefill
	// repetitions stop; MinPrefillRepeats and MaxPrefillRepeats bound them.
	PrefillPrecision  = 0.02
	MinPrefillRepeats = 2
	MaxPrefillRepeats = 5
)

// Adaptive reports whether decode windows adapt their length (Window auto).
func (p Plan) Adaptive() bool { return p.Window == WindowAuto }

// WindowLabel names the plan's window method for people: "auto (±1%, at
// most 30 s)" or "30 s"; "" when unknown.
func (p Plan) WindowLabel() string {
	if p.DurationS <= 0 {
		return "" // unknown: a reference CSV with mixed windows
	}
	if p.Adaptive() {
		return fmt.Sprintf("auto (±%g%%, at most %g s)", 100*p.Precision, p.DurationS)
	}
	return fmt.Sprintf("%g s", p.DurationS)
}

// DefaultPlan returns METHOD.md's default plan.
func DefaultPlan() Plan {
	return Plan{
		Contexts:        append([]int(nil), DefaultContexts...),
		Concurrency:     append([]int(nil), DefaultConcurrency...),
		PrefillContexts: append([]int(nil), DefaultPrefillContexts...),
		DurationS:       DefaultDuration.Seconds(),
		MaxOutput:       DefaultMaxOutput,
		Window:          WindowAuto,
		Precision:       DefaultPrecision,
		Prompts:         PromptsShared,
	}
}

// QuickPlan returns a first look at a server: decode at context 0 and
// 16K with one, four and sixteen streams, and one prefill cell at 16K, the
// default plan's windows otherwise. It answers the first questions (one
// stream's speed, how far batching scales, a long prompt's TTFT) in about
// two minutes on a card and in seconds on the demo at 10×, where the
// default plan takes half an hour at the card's pace; the full matrix
// stays DefaultPlan (issue 41: a first demo took 34 minutes).
func QuickPlan() Plan {
	p := DefaultPlan()
	p.Contexts = []int{0, 16384}
	p.Concurrency = []int{1, 4, 16}
	p.PrefillContexts = []int{16384}
	return p
}

// Duration returns D as a time.Duration.
func (p Plan) Duration() time.Duration { return time.Duration(p.DurationS * float64(time.Second)) }

// Speed returns the simulator speed factor S, 1 for real time.
func (p Plan) Speed() float64 {
	if p.SimSpeed > 1 {
		return p.SimSpeed
	}
	return 1
}

// Resolve returns the plan with ContextMax replaced by the longest prompt
// the server takes (maxModelLen − M for decode contexts, which must leave
// room for M output tokens; maxModelLen − 1 for prefill contexts, whose one
// request asks for a single token), and every list sorted ascending
// without duplicates. maxModelLen 0 (unknown) drops ContextMax.
func (p Plan) Resolve(maxModelLen int) Plan {
	out := p
	out.Contexts = resolveMax(p.Contexts, maxModelLen, p.MaxOutput)
	out.Concurrency = SortedUnique(p.Concurrency)
	out.PrefillContexts = resolveMax(p.PrefillContexts, maxModelLen, 1)
	if p.TrimContexts && maxModelLen > 0 {
		out.Contexts = atMost(out.Contexts, maxModelLen)
		out.PrefillContexts = atMost(out.PrefillContexts, maxModelLen)
	}
	return out
}

// resolveMax replaces ContextMax in cs by maxModelLen − output (dropped when
// maxModelLen is unknown) and sorts the result without duplicates.
func resolveMax(cs []int, maxModelLen, output int) []int {
	var out []int
	for _, c := range cs {
		if c == ContextMax {
			if maxModelLen <= 0 {
				continue
			}
			c = max(0, maxModelLen-output)
		}
		out = append(out, c)
	}
	return SortedUnique(out)
}

func atMost(xs []int, limit int) []int {
	var out []int
	for _, x := range xs {
		if x <= limit {
			out = append(out, x)
		}
	}
	return out
}

// SortedUnique returns a sorted copy of xs without repeats, in n log n
// (inserting each value in order would be n²: issue 12, reports of many
// contexts). Every list of contexts or concurrency levels the run document,
// the reports and the charts derive goes through it.
func SortedUnique(xs []int) []int {
	// Never nil: an empty list is written [] in the run document, not null
	// ("prefill_contexts": null with --prefill none, issue 18).
	out := append(make([]int, 0, len(xs)), xs...)
	sort.Ints(out)
	w := 0
	for i, x := range out {
		if i == 0 || x != out[w-1] {
			out[w] = x
			w++
		}
	}
	return out[:w]
}

// Bounds of a decode window, in the card's time. A window under a second
// cannot hold a whole request even on the fastest card, so its cell would
// read as "Over capacity" (no output) when nothing was over capacity; a
// window of hours is a typo (1000h for 1000s), and one cell would hold the
// run for days.
const (
	MinDuration = time.Second
	MaxDuration = time.Hour
)

// MaxSimSpeed is the fastest simulator the runner measures. Above it the
// card's time is so compressed that the client's own latency (a
// millisecond of real time is a second of the card's at 1000×) would be
// most of every figure, and the stuck budget of a request would be
// shorter than a round trip.
const MaxSimSpeed = 1000

// MaxConcurrency is the largest concurrency a plan may ask for.
const MaxConcurrency = 4096

// Validate checks a resolved plan before anything is sent. Errors name the
// value and the fix. A context above the server's max_model_len is not an
// error: its cells are Exceeds model length and the rest run (METHOD.md:
// Decode cells, step 1); only a plan of which nothing can run is refused
// (engine/session.CheckPlan).
func (p Plan) Validate() error {
	var errs []error
	if d := p.Duration(); math.IsNaN(p.DurationS) || p.DurationS < MinDuration.Seconds() || p.DurationS > MaxDuration.Seconds() {
		errs = append(errs, fmt.Errorf("the window length must be from %s to %s, not %s: a shorter window holds no whole request, a longer one holds the run for hours per cell",
			MinDuration, "1h", d))
	}
	if p.SimSpeed > MaxSimSpeed || math.IsNaN(p.SimSpeed) {
		errs = append(errs, fmt.Errorf("the simulator runs %g× the card's pace; RigBench measures one up to %d× (faster, the client's own latency would be most of every figure): start it with --speed %d or less",
			p.SimSpeed, MaxSimSpeed, MaxSimSpeed))
	}
	switch {
	case p.Window != "" && p.Window != WindowFixed && p.Window != WindowAuto:
		errs = append(errs, fmt.Errorf("the window method must be %q or %q, not %q", WindowFixed, WindowAuto, p.Window))
	case p.Adaptive() && !(p.Precision > 0 && p.Precision <= 0.5):
		errs = append(errs, fmt.Errorf("the precision of adaptive windows must be above 0%% and at most 50%%, not %g%%", 100*p.Precision))
	case p.Adaptive() && p.Duration() < MinAutoWindow:
		errs = append(errs, fmt.Errorf("the longest adaptive window must be at least %s, not %gs", MinAutoWindow, p.DurationS))
	}
	if p.MaxOutput < 1 {
		errs = append(errs, fmt.Errorf("max output must be at least 1 token, not %d", p.MaxOutput))
	}
	if p.AcceptLenRef != 0 && !(p.AcceptLenRef >= 1 && p.AcceptLenRef <= MaxAcceptLength) {
		errs = append(errs, fmt.Errorf("the reference acceptance length must be from 1 to %d tokens per step, not %g: a drafted step yields its accepted drafts plus one token", MaxAcceptLength, p.AcceptLenRef))
	}
	if len(p.Contexts) == 0 && len(p.PrefillContexts) == 0 {
		errs = append(errs, errors.New("the plan has no contexts: give decode contexts, prefill contexts or both"))
	}
	if len(p.Contexts) > 0 && len(p.Concurrency) == 0 {
		errs = append(errs, errors.New("the plan has decode contexts but no concurrency levels"))
	}
	for _, n := range p.Concurrency {
		if n < 1 || n > MaxConcurrency {
			errs = append(errs, fmt.Errorf("concurrency %d is out of range (1–%d)", n, MaxConcurrency))
		}
	}
	for _, c := range append(append([]int(nil), p.Contexts...), p.PrefillContexts...) {
		if c < 0 {
			errs = append(errs, fmt.Errorf("context %d is negative", c))
		}
	}
	if err := p.validateBurst(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
