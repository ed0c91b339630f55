package tune

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// ObjectiveKind names what "fastest" means for a sweep.
type ObjectiveKind string

// Objectives. The cell objectives read one decode cell (context × N); the
// others search the workload's decode cells.
const (
	// MaxTotalTokS: the highest total output tok/s at a cell.
	MaxTotalTokS ObjectiveKind = "total-tok-s"
	// MaxPerRequestTokS: the highest per-request tok/s at a cell.
	MaxPerRequestTokS ObjectiveKind = "per-request-tok-s"
	// MinTTFTP90: the lowest 90th-percentile time to first token at a cell.
	MinTTFTP90 ObjectiveKind = "ttft-p90"
	// LongestContext: the longest context whose cell still reaches
	// Threshold tok/s per request (at any concurrency of the workload).
	LongestContext ObjectiveKind = "longest-context"
	// MostStreams: the highest concurrency at Context whose TTFT p90 stays
	// under Threshold milliseconds.
	MostStreams ObjectiveKind = "most-streams"
	// MinJPerToken: the lowest energy per output token over the workload's
	// cells (the variant's most efficient cell); needs GPU telemetry.
	MinJPerToken ObjectiveKind = "j-per-token"
)

// Objective is what a sweep maximises or minimises.
type Objective struct {
	Kind ObjectiveKind `json:"kind"`
	// Context and Concurrency name the cell of a cell objective; Context
	// also names the context of MostStreams.
	Context     int `json:"context,omitempty"`
	Concurrency int `json:"concurrency,omitempty"`
	// Threshold is X tok/s per request (LongestContext) or Y ms of TTFT p90
	// (MostStreams).
	Threshold float64 `json:"threshold,omitempty"`
}

// ObjectiveNames lists the objectives with their argument, for help texts.
var ObjectiveNames = []string{
	"total-tok-s@CTXxN", "per-request-tok-s@CTXxN", "ttft-p90@CTXxN",
	"longest-context@TOKS (per-request tok/s)", "most-streams@CTX:TTFT (e.g. 16K:2s)", "j-per-token",
}

// ObjectiveChoices are ready-to-use objectives, one per kind, that the
// app's Objective field offers as choices (it still takes any text
// ParseObjective reads): the cell objectives bare (the workload's largest
// cell), the others with the argument their errors give as an example.
var ObjectiveChoices = []string{
	string(MaxTotalTokS), string(MaxPerRequestTokS), string(MinTTFTP90),
	string(LongestContext) + "@20", string(MostStreams) + "@16K:2s", string(MinJPerToken),
}

// cellObjective reports whether the objective reads one cell.
func (k ObjectiveKind) cellObjective() bool {
	return k == MaxTotalTokS || k == MaxPerRequestTokS || k == MinTTFTP90
}

// HigherIsBetter says the objective's direction.
func (k ObjectiveKind) HigherIsBetter() bool { return k != MinTTFTP90 && k != MinJPerToken }

// ParseObjective reads NAME[@ARG]: "total-tok-s@16Kx8", "ttft-p90@0x1",
// "longest-context@20", "most-streams@16K:2s", "j-per-token". A cell
// objective without its cell takes the workload's largest context and
// concurrency. Underscores work like dashes. Its errors read after the
// input's name (`"x": …`, "names the cell …"), as a *rundoc.FieldError's
// Msg does.
func ParseObjective(s string, plan rundoc.Plan) (Objective, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), "@")
	o := Objective{Kind: ObjectiveKind(strings.ReplaceAll(strings.ToLower(name), "_", "-"))}
	switch {
	case o.Kind.cellObjective():
		if !hasArg {
			o.Context, o.Concurrency = largest(plan.Contexts), largest(plan.Concurrency)
			break
		}
		c, n, ok := strings.Cut(strings.ReplaceAll(strings.ToLower(arg), "×", "x"), "x")
		ctx, err := rundoc.ParseTokens(c)
		conc, err2 := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err != nil || err2 != nil || conc < 1 {
			return o, fmt.Errorf("%q: name the cell as CTXxN, e.g. %s@16Kx8", s, o.Kind)
		}
		o.Context, o.Concurrency = ctx, conc
	case o.Kind == LongestContext:
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(arg), "tok/s"), 64)
		if !hasArg || err != nil || !(x > 0) || math.IsInf(x, 0) {
			return o, fmt.Errorf("%q: give the per-request tok/s to reach, e.g. %s", s, ObjectiveChoices[3])
		}
		o.Threshold = x
	case o.Kind == MostStreams:
		c, y, ok := strings.Cut(arg, ":")
		ctx, err := rundoc.ParseTokens(c)
		ms, err2 := parseMillis(y)
		if !hasArg || !ok || err != nil || err2 != nil || ms <= 0 {
			return o, fmt.Errorf("%q: give the context and the TTFT p90 to stay under, e.g. %s", s, ObjectiveChoices[4])
		}
		o.Context, o.Threshold = ctx, ms
	case o.Kind == MinJPerToken:
		if hasArg {
			return o, fmt.Errorf("%q: j-per-token takes no argument", s)
		}
	default:
		return o, fmt.Errorf("%q is not an objective: choose one of %s", name, strings.Join(ObjectiveNames, ", "))
	}
	return o, o.check(plan)
}

// check refuses an objective the workload cannot measure; its error reads
// after the objective's name ("names the cell …").
func (o Objective) check(plan rundoc.Plan) error {
	has := func(xs []int, x int) bool {
		for _, v := range xs {
			if v == x {
				return true
			}
		}
		return false
	}
	switch {
	case o.Kind.cellObjective():
		if !has(plan.Contexts, o.Context) || !has(plan.Concurrency, o.Concurrency) {
			return fmt.Errorf("names the cell %s, which is not in the workload: add it to the contexts and concurrency levels", rundoc.CellName(o.Context, o.Concurrency))
		}
	case o.Kind == MostStreams:
		if !has(plan.Contexts, o.Context) {
			return fmt.Errorf("names the context %s, which is not in the workload's contexts", rundoc.ContextLabel(o.Context))
		}
	case o.Kind == "":
		return errors.New("is needed: choose one of " + strings.Join(ObjectiveNames, ", "))
	}
	return nil
}

// String is the objective as ParseObjective reads it.
func (o Objective) String() string {
	switch {
	case o.Kind.cellObjective():
		return fmt.Sprintf("%s@%sx%d", o.Kind, rundoc.ContextLabel(o.Context), o.Concurrency)
	case o.Kind == LongestContext:
		return fmt.Sprintf("%s@%s", o.Kind, fmtNum(o.Threshold))
	case o.Kind == MostStreams:
		return fmt.Sprintf("%s@%s:%s", o.Kind, rundoc.ContextLabel(o.Context), fmtMillis(o.Threshold))
	}
	return string(o.Kind)
}

// Describe words the objective for people ("total tok/s at 16K×8").
func (o Objective) Describe() string {
	switch o.Kind {
	case MaxTotalTokS:
		return "total tok/s at " + rundoc.CellName(o.Context, o.Concurrency)
	case MaxPerRequestTokS:
		return "per-request tok/s at " + rundoc.CellName(o.Context, o.Concurrency)
	case MinTTFTP90:
		return "TTFT p90 at " + rundoc.CellName(o.Context, o.Concurrency)
	case LongestContext:
		return fmt.Sprintf("longest context at %s tok/s per request", fmtNum(o.Threshold))
	case MostStreams:
		return fmt.Sprintf("concurrent streams at %s with TTFT p90 under %s", rundoc.ContextLabel(o.Context), fmtMillis(o.Threshold))
	case MinJPerToken:
		return "J/token"
	}
	return string(o.Kind)
}

// Unit is the unit of the objective's score.
func (o Objective) Unit() string {
	switch o.Kind {
	case MaxTotalTokS, MaxPerRequestTokS:
		return "tok/s"
	case MinTTFTP90:
		return "ms"
	case LongestContext:
		return "tokens"
	case MostStreams:
		return "streams"
	case MinJPerToken:
		return "J/token"
	}
	return ""
}

// Score is a variant's value on the objective.
type Score struct {
	Value float64 `json:"value"`
	// CI95 is the half-width of the value's 95% confidence interval, 0
	// when the figure carries none.
	CI95 float64 `json:"ci95,omitempty"`
	// OK is false when the variant has no value: Why says why.
	OK  bool   `json:"ok"`
	Why string `json:"why,omitempty"`
}

// Score reads the objective from a run's decode cells. Only Valid cells
// count (a queued or over-capacity cell did not serve its N streams), and
// only cells that meet every constraint.
func (o Objective) Score(run *rundoc.Run, cons []Constraint) Score {
	if run == nil {
		return Score{Why: "not measured"}
	}
	usable := func(c *rundoc.Cell) (bool, string) {
		if c.Status != rundoc.StatusValid {
			return false, lowerFirst(rundoc.StatusText(c)) // an Unreliable cell says why
		}
		for _, k := range cons {
			if !k.Holds(c) {
				return false, "breaks " + k.String()
			}
		}
		return true, ""
	}
	if o.Kind.cellObjective() {
		c := run.Find(rundoc.PhaseDecode, o.Context, o.Concurrency)
		if c == nil {
			return Score{Why: rundoc.CellName(o.Context, o.Concurrency) + " not measured"}
		}
		if ok, why := usable(c); !ok {
			return Score{Why: rundoc.CellName(o.Context, o.Concurrency) + ": " + why}
		}
		switch o.Kind {
		case MaxTotalTokS:
			return Score{Value: c.TotalTokS, CI95: c.TotalTokSCI95, OK: true}
		case MaxPerRequestTokS:
			return Score{Value: c.PerRequestTokS, CI95: c.PerRequestTokSCI95, OK: true}
		default:
			return Score{Value: c.TTFTP90Ms, OK: true}
		}
	}
	best, found := 0.0, false
	for i := range run.Cells {
		c := &run.Cells[i]
		if c.Phase != rundoc.PhaseDecode {
			continue
		}
		if ok, _ := usable(c); !ok {
			continue
		}
		var v float64
		switch o.Kind {
		case LongestContext:
			if c.PerRequestTokS < o.Threshold {
				continue
			}
			v = float64(c.Context)
		case MostStreams:
			if c.Context != o.Context || c.TTFTP90Ms > o.Threshold {
				continue
			}
			v = float64(c.Concurrency)
		case MinJPerToken:
			if c.EnergyJPerToken <= 0 {
				continue
			}
			v = c.EnergyJPerToken
		}
		if !found || better(o.Kind, v, best) {
			best, found = v, true
		}
	}
	if !found {
		why := map[ObjectiveKind]string{
			LongestContext: fmt.Sprintf("no Valid cell reaches %s tok/s per request", fmtNum(o.Threshold)),
			MostStreams:    fmt.Sprintf("no Valid cell at %s keeps TTFT p90 under %s", rundoc.ContextLabel(o.Context), fmtMillis(o.Threshold)),
			MinJPerToken:   "no Valid cell has a power reading (GPU telemetry)",
		}[o.Kind]
		return Score{Why: why}
	}
	return Score{Value: best, OK: true}
}

// better reports whether a beats b in the objective's direction.
func better(k ObjectiveKind, a, b float64) bool {
	if k.HigherIsBetter() {
		return a > b
	}
	return a < b
}

// FormatScore renders a score with its unit ("1,234.5 tok/s", "16K").
func (o Objective) FormatScore(s Score) string {
	if !s.OK {
		return "—"
	}
	switch o.Kind {
	case LongestContext:
		return rundoc.ContextLabel(int(s.Value))
	case MostStreams:
		return strconv.Itoa(int(s.Value))
	case MinTTFTP90:
		return strconv.FormatFloat(s.Value, 'f', 0, 64) + " ms"
	case MinJPerToken:
		return strconv.FormatFloat(s.Value, 'f', 3, 64) + " J/token"
	}
	return strconv.FormatFloat(s.Value, 'f', 1, 64) + " tok/s"
}

// FormatScoreCI is FormatScore with the score's 95% half-width where it
// has one ("287.7 ± 3.1 tok/s"): a figure shown without it hides whether
// two variants differ at all.
func (o Objective) FormatScoreCI(s Score) string {
	v := o.FormatScore(s)
	if !s.OK || s.CI95 <= 0 {
		return v
	}
	num, unit, _ := strings.Cut(v, " ")
	ci := strconv.FormatFloat(s.CI95, 'f', 1, 64)
	if o.Kind == MinTTFTP90 {
		ci = strconv.FormatFloat(s.CI95, 'f', 0, 64)
	}
	return strings.TrimSpace(num + " ± " + ci + " " + unit)
}

// Constraint is a limit every scored cell must meet, e.g. ttft_p90<=2s.
type Constraint struct {
	// Figure is one of ConstraintFigures.
	Figure string `json:"figure"`
	// Op is "<=" or ">=".
	Op    string  `json:"op"`
	Value float64 `json:"value"` // milliseconds for times
}

// ConstraintFigures are the figures a constraint can limit, with how each
// is read from a cell; times are in milliseconds.
var ConstraintFigures = map[string]func(*rundoc.Cell) float64{
	"ttft_p90":          func(c *rundoc.Cell) float64 { return c.TTFTP90Ms },
	"ttft_p99":          func(c *rundoc.Cell) float64 { return c.TTFTP99Ms },
	"ttft":              func(c *rundoc.Cell) float64 { return c.TTFTMs },
	"tbt_p90":           func(c *rundoc.Cell) float64 { return c.TBTP90Ms },
	"tbt":               func(c *rundoc.Cell) float64 { return c.TBTMs },
	"total_tok_s":       func(c *rundoc.Cell) float64 { return c.TotalTokS },
	"per_request_tok_s": func(c *rundoc.Cell) float64 { return c.PerRequestTokS },
}

func isTime(figure string) bool {
	return strings.HasPrefix(figure, "ttft") || strings.HasPrefix(figure, "tbt")
}

// ParseConstraint reads FIGURE<=VALUE or FIGURE>=VALUE ("ttft_p90<=2s",
// "per-request-tok-s>=20"); times take s or ms (bare numbers are ms). Its
// errors read after the input's name (`"x": …`).
func ParseConstraint(s string) (Constraint, error) {
	for _, op := range []string{"<=", ">=", "<", ">"} {
		name, val, ok := strings.Cut(s, op)
		if !ok {
			continue
		}
		k := Constraint{Figure: strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_"), Op: op[:1] + "="}
		if _, known := ConstraintFigures[k.Figure]; !known {
			return k, fmt.Errorf("%q: unknown figure %q (use ttft_p90, ttft, tbt_p90, tbt, total_tok_s or per_request_tok_s)", s, name)
		}
		var err error
		if isTime(k.Figure) {
			k.Value, err = parseMillis(val)
		} else {
			k.Value, err = strconv.ParseFloat(strings.TrimSpace(val), 64)
		}
		if err != nil || math.IsNaN(k.Value) || math.IsInf(k.Value, 0) || k.Value < 0 {
			return k, fmt.Errorf("%q: %q is not a limit (e.g. ttft_p90<=2s)", s, val)
		}
		return k, nil
	}
	return Constraint{}, fmt.Errorf("%q: write FIGURE<=LIMIT or FIGURE>=LIMIT, e.g. ttft_p90<=2s", s)
}

// Holds reports whether the cell meets the constraint.
func (k Constraint) Holds(c *rundoc.Cell) bool {
	v := ConstraintFigures[k.Figure](c)
	if k.Op == "<=" {
		return v <= k.Value
	}
	return v >= k.Value
}

// String is the constraint as ParseConstraint reads it.
func (k Constraint) String() string {
	if isTime(k.Figure) {
		return k.Figure + k.Op + fmtMillis(k.Value)
	}
	return k.Figure + k.Op + fmtNum(k.Value)
}

// parseMillis reads "2s", "250ms" or a bare number of milliseconds.
func parseMillis(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return float64(d) / float64(time.Millisecond), nil
	}
	return strconv.ParseFloat(s, 64)
}

// fmtMillis renders milliseconds as "2s" or "250ms".
func fmtMillis(ms float64) string {
	if ms >= 1000 {
		return fmtNum(ms/1000) + "s"
	}
	return fmtNum(ms) + "ms"
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func largest(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
