package tune

import (
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Quality in a sweep (issue 37; METHOD.md, "Quality in Tune"). With
// Spec.Quality set, each variant's server is asked the probe after its
// workload (session.RunQuality), the run keeps the result, and the judge
// pairs every variant's probe with the base launch's. A variant "keeps
// quality" when the paired test shows no significant loss
// (quality.Pairing.Loses); the verdict recommends the fastest variant
// that keeps it and says why it passed over a faster one that did not.

// QualityVerdict is what a variant's quality check says, for the table
// and the verdict.
type QualityVerdict string

// Quality verdicts.
const (
	// QualityBaseline: the base launch, whose probe the others pair with.
	QualityBaseline QualityVerdict = "baseline"
	// QualityKept: no significant loss against the base.
	QualityKept QualityVerdict = "keeps"
	// QualityLost: a significant loss against the base; never recommended.
	QualityLost QualityVerdict = "loses"
	// QualityUnknown: no probe, a failed probe, or a base without one;
	// VariantQuality.Why says which.
	QualityUnknown QualityVerdict = "unknown"
)

// VariantQuality is a variant's quality check against the base launch's:
// everything the CLI's table, the app's Tune view and the verdict show,
// computed once here.
type VariantQuality struct {
	// Check is the variant's probe as its run keeps it (nil when the run
	// has none).
	Check *quality.Check
	// Pairing is the probe paired with the base's (nil for the base
	// itself, and when either side has no result).
	Pairing *quality.Pairing
	// Verdict is the rule's answer, Why the reason when it is unknown.
	Verdict QualityVerdict
	Why     string
}

// Keeps reports whether the variant may be recommended on quality: the
// base, or a variant that keeps it.
func (q *VariantQuality) Keeps() bool {
	return q != nil && (q.Verdict == QualityBaseline || q.Verdict == QualityKept)
}

// Short is the table's cell: the accuracy with its Wilson interval for
// the base, the paired change with its interval and p for a variant
// ("−10.0 pts [−14.4, −5.6], p < 0.0001: loses"), or why none.
func (q *VariantQuality) Short() string {
	switch {
	case q == nil:
		return "—"
	case q.Verdict == QualityBaseline && q.Check.Result.Dataset != nil:
		a := q.Check.Result.Accuracy()
		return fmt.Sprintf("%.1f%% [%.1f, %.1f]: baseline", 100*a.Share, 100*a.CI95.Lo, 100*a.CI95.Hi)
	case q.Verdict == QualityBaseline:
		return "baseline"
	case q.Pairing != nil && q.Pairing.Task != nil:
		c := q.Pairing.Task
		return fmt.Sprintf("%s pts [%s, %s], %s: %s", signedPoints(c.DeltaPoints), signedPoints(c.DeltaCI95.Lo), signedPoints(c.DeltaCI95.Hi), quality.PText(c.McNemarP), q.Verdict)
	case q.Pairing != nil && q.Pairing.Agreement != nil:
		a := q.Pairing.Agreement
		return fmt.Sprintf("%.1f%% ± %.1f%% agree, KL %.3f: %s", 100*a.PrefixShare, 100*a.PrefixShareCI95, a.KL, q.Verdict)
	}
	return "unknown"
}

// signedPoints writes points with a real minus sign.
func signedPoints(x float64) string {
	if x < 0 {
		return fmt.Sprintf("−%.1f", -x)
	}
	return fmt.Sprintf("+%.1f", x)
}

// judgeQuality fills each variant's Quality from the runs: the base's
// probe is the baseline, every other probe is paired with it. Nothing is
// set when the spec asks no probe.
func (r *Result) judgeQuality() {
	if r.Spec.Quality == "" || len(r.Variants) == 0 {
		return
	}
	base, baseWhy := checkOf(r.Variants[0])
	for i := range r.Variants {
		v := &r.Variants[i]
		c, why := checkOf(*v)
		q := &VariantQuality{Check: c, Verdict: QualityUnknown, Why: why}
		v.Quality = q
		switch {
		case i == 0 && c != nil && c.Result != nil:
			q.Verdict, q.Why = QualityBaseline, ""
		case c == nil || c.Result == nil:
		case base == nil || base.Result == nil:
			q.Why = "the base launch has no probe to pair with (" + baseWhy + ")"
		default:
			q.Pairing = quality.Pair(base.Result, c.Result, r.Variants[0].RunID, BaseLabel)
			loses, known := q.Pairing.Loses()
			switch {
			case !known:
				q.Why = q.Pairing.Error
			case loses:
				q.Verdict, q.Why = QualityLost, ""
			default:
				q.Verdict, q.Why = QualityKept, ""
			}
		}
	}
}

// checkOf reads a variant's quality check from its run, or says why it
// has none.
func checkOf(v VariantResult) (*quality.Check, string) {
	if v.Status != Measured || v.Run == nil {
		return nil, "not measured"
	}
	if v.Run.Quality == nil {
		return nil, "its run has no quality probe"
	}
	c, err := quality.FromRun(v.Run.Quality)
	if err != nil {
		return nil, "its quality probe is unreadable: " + err.Error()
	}
	if c.Result == nil {
		return c, strings.TrimSuffix(c.Error, ".")
	}
	return c, ""
}

// eligible reports whether variant i may be recommended: always without
// a quality probe, and with one, the base and the variants that keep
// quality. When the base itself has no probe nothing can be paired, and
// the sweep is judged on speed alone (the verdict says so).
func (r *Result) eligible(i int) bool {
	if r.Spec.Quality == "" || i == 0 || !r.baseProbed() {
		return true
	}
	return r.Variants[i].Quality.Keeps()
}

// baseProbed reports whether the base launch has a probe result.
func (r *Result) baseProbed() bool {
	q := r.Variants[0].Quality
	return q != nil && q.Verdict == QualityBaseline
}

// passedOver are the variants the quality rule kept from winning that
// score better than the winner or tie with it (all such when no variant
// won), in the sweep's order.
func (r *Result) passedOver() []int {
	if r.Spec.Quality == "" || !r.baseProbed() {
		return nil
	}
	o := r.Spec.Objective
	var out []int
	for i, v := range r.Variants {
		if r.eligible(i) || !v.Score.OK {
			continue
		}
		if r.Best >= 0 {
			best := r.Variants[r.Best].Score
			if !better(o.Kind, v.Score.Value, best.Value) && !o.Tie(v.Score, best) {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// qualityWords is the verdict's quality sentence: each faster variant
// passed over and why ("`--kv-cache-dtype int4_per_token_head`: +61% total
// tok/s at 16K×8, but gsm8k:200 −4.1 points (p = 0.0030): not
// recommended"), then what the winner's probe says ("`--kv-cache-dtype
// fp8`: no significant change (−0.5 points, p = 1.00)"). "" without a
// probe.
func (r *Result) qualityWords() string {
	if r.Spec.Quality == "" || len(r.Variants) == 0 {
		return ""
	}
	if !r.baseProbed() {
		return fmt.Sprintf("Quality was not checked: your flags have no %s result to pair with (%s), so this verdict is on speed alone.",
			r.Spec.Quality, r.Variants[0].Quality.Why)
	}
	o := r.Spec.Objective
	base := r.Variants[0]
	var parts []string
	for _, i := range r.passedOver() {
		v := r.Variants[i]
		gain := o.Value(v.Score)
		switch {
		case r.Best >= 0 && o.Tie(v.Score, r.Variants[r.Best].Score):
			of := "your flags"
			if r.Best > 0 {
				of = "`" + r.Variants[r.Best].Variant.Label() + "`"
			}
			gain = o.FormatScoreCI(v.Score) + ", within the noise of " + of
		case base.Score.OK:
			gain = change(o, base.Score.Value, v.Score.Value)
		}
		q := v.Quality
		why := "its quality could not be checked (" + q.Why + ")"
		if q.Verdict == QualityLost {
			why = q.Pairing.Short(r.Spec.Quality)
		}
		parts = append(parts, fmt.Sprintf("`%s`: %s, but %s: not recommended", v.Variant.Label(), gain, why))
	}
	if r.Best > 0 {
		w := r.Variants[r.Best]
		parts = append(parts, fmt.Sprintf("`%s`: %s", w.Variant.Label(), keptText(w.Quality.Pairing)))
	}
	if len(parts) == 0 {
		return ""
	}
	return upperFirst(strings.Join(parts, "; ")) + "."
}

// keptText words a pairing that keeps quality: "no significant change
// (−0.5 points, p = 1.00)" for a task probe, "no systematic divergence
// (94.3% ± 13.4% of tokens agree)" for agreement.
func keptText(p *quality.Pairing) string {
	switch {
	case p == nil:
		return "quality unknown"
	case p.Task != nil && p.Task.DeltaPoints > 0 && p.Task.Significant:
		return fmt.Sprintf("quality gained (%s points, %s)", signedPoints(p.Task.DeltaPoints), quality.PText(p.Task.McNemarP))
	case p.Task != nil:
		return fmt.Sprintf("no significant change in quality (%s points, %s)", signedPoints(p.Task.DeltaPoints), quality.PText(p.Task.McNemarP))
	case p.Agreement != nil:
		return fmt.Sprintf("no systematic divergence (%.1f%% ± %.1f%% of tokens agree)", 100*p.Agreement.PrefixShare, 100*p.Agreement.PrefixShareCI95)
	}
	return "quality unknown"
}

// DocQuality is a variant's quality check in the sweep document.
type DocQuality struct {
	// Probe is the sweep's probe ("gsm8k:200").
	Probe string `json:"probe"`
	// Verdict is baseline, keeps, loses or unknown; Why says why unknown.
	Verdict QualityVerdict `json:"verdict"`
	Why     string         `json:"why,omitempty"`
	// Text is the table's cell (VariantQuality.Short).
	Text string `json:"text"`
	// Accuracy is a task probe's accuracy with its Wilson interval.
	Accuracy *quality.Accuracy `json:"accuracy,omitempty"`
	// Comparison (a task probe) or Agreement is the pairing with the
	// base's probe.
	Comparison *quality.Comparison `json:"comparison,omitempty"`
	Agreement  *quality.Agreement  `json:"agreement,omitempty"`
}

// docQuality is q as the sweep document holds it; nil without a probe.
func docQuality(probe string, q *VariantQuality) *DocQuality {
	if q == nil {
		return nil
	}
	d := &DocQuality{Probe: probe, Verdict: q.Verdict, Why: q.Why, Text: q.Short()}
	if q.Check != nil && q.Check.Result != nil && q.Check.Result.Dataset != nil {
		a := q.Check.Result.Accuracy()
		d.Accuracy = &a
	}
	if q.Pairing != nil {
		d.Comparison, d.Agreement = q.Pairing.Task, q.Pairing.Agreement
	}
	return d
}

// probeOf is the quality result a measured variant's run keeps, nil when
// none: the baseline the later variants are paired with.
func probeOf(run *rundoc.Run) *quality.Result {
	if run == nil {
		return nil
	}
	c, err := quality.FromRun(run.Quality)
	if err != nil || c == nil {
		return nil
	}
	return c.Result
}
