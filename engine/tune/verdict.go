package tune

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Tolerance is the relative difference below which two scores of a
// continuous objective (tok/s, TTFT, J/token) are a tie when the figures
// carry no confidence interval (TTFT p90, J/token, runs measured before
// RigBench reported ±ci95): repeated runs of one configuration on one card
// differ by 1–2% in these figures, so 3% keeps a lucky window from being
// called a win. (Context and stream counts tie only when equal.)
const Tolerance = 0.03

// Result is a finished (or stopped) sweep.
type Result struct {
	Spec     Spec
	Variants []VariantResult
	// Best is the index in Variants of the winner, -1 when no variant has
	// a score.
	Best int
	// Ties are the other variants within the noise of Best.
	Ties []int
	// Verdict is the answer in one or two sentences, and then whether
	// each of Checks held.
	Verdict string
	// Checks are the spec's expectations against what was measured.
	Checks []Check
	// QualityVerdict is the verdict's quality sentences alone (they are in
	// Verdict too): each faster variant passed over for losing quality,
	// and what the winner's probe found; "" without a probe
	// (METHOD.md: "In a run and in Tune").
	QualityVerdict string
}

// Tie reports whether two scores are within the noise of each other. When
// both carry a 95% confidence half-width (METHOD.md: Uncertainty), they tie
// when their difference is within the half-width of the difference,
// √(ha² + hb²) for independent measurements; otherwise within Tolerance.
func (o Objective) Tie(a, b Score) bool {
	switch o.Kind {
	case LongestContext, MostStreams:
		return a.Value == b.Value
	}
	if a.Value == b.Value {
		return true
	}
	if a.CI95 > 0 && b.CI95 > 0 {
		return math.Abs(a.Value-b.Value) <= math.Hypot(a.CI95, b.CI95)
	}
	return math.Abs(a.Value-b.Value) <= Tolerance*math.Max(math.Abs(a.Value), math.Abs(b.Value))
}

// Judge scores the measured variants on the spec's objective and
// constraints, picks the best and words the verdict. The first variant is
// the base.
func Judge(spec Spec, variants []VariantResult) *Result {
	r := &Result{Spec: spec, Variants: variants}
	for i := range r.Variants {
		if r.Variants[i].Status == Measured {
			r.Variants[i].Score = spec.Objective.Score(r.Variants[i].Run, spec.Constraints)
		} else {
			r.Variants[i].Score = Score{Why: string(r.Variants[i].Status)}
		}
	}
	r.judgeQuality()
	r.judge()
	if r.QualityVerdict = r.qualityWords(); r.QualityVerdict != "" {
		r.Verdict += " " + r.QualityVerdict
	}
	if d := r.drafting(); d != "" {
		r.Verdict += " " + d
	}
	r.Checks = r.check()
	if len(r.Checks) > 0 {
		var ts []string
		for _, c := range r.Checks {
			ts = append(ts, c.Text())
		}
		r.Verdict += " " + upperFirst(strings.Join(ts, "; ")) + "."
	}
	return r
}

// upperFirst capitalises a sentence's first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// judge picks the best variant and words the verdict. The base wins ties:
// a change that is not measurably better is not worth making.
func (r *Result) judge() {
	o := r.Spec.Objective
	r.Best, r.Ties = -1, nil
	for i, v := range r.Variants {
		if !v.Score.OK || !r.eligible(i) {
			continue
		}
		if r.Best < 0 || better(o.Kind, v.Score.Value, r.Variants[r.Best].Score.Value) {
			r.Best = i
		}
	}
	if r.Best < 0 {
		r.Verdict = r.noWinner()
		return
	}
	best := r.Variants[r.Best]
	// Prefer the base (index 0), then the earliest variant, among those
	// tied with the best.
	for i, v := range r.Variants {
		if i < r.Best && v.Score.OK && r.eligible(i) && o.Tie(v.Score, best.Score) {
			r.Best, best = i, v
			break
		}
	}
	for i, v := range r.Variants {
		if i != r.Best && v.Score.OK && r.eligible(i) && o.Tie(v.Score, best.Score) {
			r.Ties = append(r.Ties, i)
		}
	}
	r.Verdict = r.word()
}

func (r *Result) noWinner() string {
	if len(r.Variants) == 0 {
		return "No variant ran."
	}
	b := r.Variants[0]
	why := b.Score.Why
	switch {
	case b.Status != Measured && b.Error != "":
		why = b.Error
	case b.Status != Measured:
		why = string(b.Status)
	}
	which := "No variant"
	if len(r.passedOver()) > 0 {
		which = "No variant that keeps quality"
	}
	return fmt.Sprintf("%s has a figure for %s (%s with your flags); change the workload or the objective.", which, r.Spec.Objective.Describe(), strings.TrimSuffix(why, "."))
}

// word writes the verdict for a chosen Best.
func (r *Result) word() string {
	o := r.Spec.Objective
	base, best := r.Variants[0], r.Variants[r.Best]
	code := "`" + best.Variant.Label() + "`"
	if r.Best == 0 {
		if len(r.Ties) > 0 {
			t := r.Variants[r.Ties[0]]
			return fmt.Sprintf("Keep your flags: %s (%s) is within the noise of your %s for %s, a tie.",
				"`"+t.Variant.Label()+"`", o.FormatScoreCI(t.Score), o.FormatScoreCI(base.Score), o.Describe())
		}
		if len(r.passedOver()) > 0 {
			return fmt.Sprintf("Keep your flags: no variant that keeps quality beats their %s for %s.", o.FormatScoreCI(base.Score), o.Describe())
		}
		return fmt.Sprintf("Keep your flags: no variant beats their %s for %s.", o.FormatScoreCI(base.Score), o.Describe())
	}
	var s string
	if !base.Score.OK {
		why := base.Score.Why
		if base.Status != Measured {
			why = string(base.Status)
			if base.Error != "" {
				why = base.Error
			}
		}
		s = fmt.Sprintf("%s: %s, where your flags had none (%s)", code, o.Value(best.Score), strings.TrimSuffix(lowerFirst(why), "."))
	} else {
		s = fmt.Sprintf("%s: %s over your flags", code, change(o, base.Score.Value, best.Score.Value))
	}
	skip := -1 // the objective's cell, already named when the base had no score there
	if !base.Score.OK && o.Kind.cellObjective() {
		skip = o.Context*1_000_000 + o.Concurrency
	}
	if fits := nowFits(base.Run, best.Run, skip); len(fits) > 0 {
		s += ", and " + strings.Join(fits, " and ")
	}
	s += "."
	if len(r.Ties) > 0 {
		var ts []string
		for _, i := range r.Ties {
			ts = append(ts, "`"+r.Variants[i].Variant.Label()+"`")
		}
		s += fmt.Sprintf(" %s %s within the noise of it, a tie.", strings.Join(ts, ", "), map[bool]string{true: "is", false: "are"}[len(ts) == 1])
	}
	return s
}

// Value words a score with what it measures ("189.5 total tok/s at
// 16K×32").
func (o Objective) Value(s Score) string {
	if !s.OK {
		return "no figure for " + o.Describe()
	}
	v := o.FormatScore(s)
	switch o.Kind {
	case MaxTotalTokS:
		return strings.TrimSuffix(v, " tok/s") + " " + o.Describe()
	case MaxPerRequestTokS:
		return strings.TrimSuffix(v, " tok/s") + " tok/s per request at " + rundoc.CellName(o.Context, o.Concurrency)
	case MinTTFTP90:
		return "a TTFT p90 of " + v + " at " + rundoc.CellName(o.Context, o.Concurrency)
	case LongestContext:
		return v + " of context at " + fmtNum(o.Threshold) + " tok/s per request"
	case MostStreams:
		return v + " " + o.Describe()
	}
	return v
}

// change words the improvement from a to b ("+38% total tok/s at 16K×8").
func change(o Objective, a, b float64) string {
	switch o.Kind {
	case LongestContext:
		return fmt.Sprintf("%s reaches %s tok/s per request, up from %s", rundoc.ContextLabel(int(b)), fmtNum(o.Threshold), rundoc.ContextLabel(int(a)))
	case MostStreams:
		return fmt.Sprintf("%d streams at %s with TTFT p90 under %s, up from %d", int(b), rundoc.ContextLabel(o.Context), fmtMillis(o.Threshold), int(a))
	}
	if a == 0 {
		return fmt.Sprintf("%s for %s", o.FormatScore(Score{Value: b, OK: true}), o.Describe())
	}
	pct := (b/a - 1) * 100
	if o.Kind.HigherIsBetter() {
		return fmt.Sprintf("+%s%% %s", strconv.FormatFloat(pct, 'f', 0, 64), o.Describe())
	}
	return fmt.Sprintf("%s%% lower %s", strconv.FormatFloat(-pct, 'f', 0, 64), o.Describe())
}

// nowFits lists decode cells the best variant ran Valid that the base could
// not ("64K×4 now fits (it was over capacity)"), at most two.
func nowFits(base, best *rundoc.Run, skip int) []string {
	if base == nil || best == nil {
		return nil
	}
	var out []string
	for _, c := range best.Cells {
		if c.Phase != rundoc.PhaseDecode || c.Status != rundoc.StatusValid || c.Context*1_000_000+c.Concurrency == skip {
			continue
		}
		b := base.Find(rundoc.PhaseDecode, c.Context, c.Concurrency)
		if b == nil || b.Status == rundoc.StatusValid {
			continue
		}
		verb := "now fits"
		if b.Status == rundoc.StatusQueued {
			verb = "now runs without queueing"
		}
		out = append(out, fmt.Sprintf("%s %s (it was %s)", rundoc.CellName(c.Context, c.Concurrency), verb, lowerFirst(string(b.Status))))
		if len(out) == 2 {
			break
		}
	}
	return out
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
