package quality

import (
	"fmt"
	"strings"
)

// Report is a probe's result and, against a baseline, its paired
// comparison, as the sentences people read: written once here, so the
// CLI (line by line, Lines) and the app (one widget per part) say the
// same. A part that does not apply is "".
type Report struct {
	// Title names the probe, its data set and what answered ("gsm8k:200
	// on demo-arith (sha256 cad9a93964ce…), 200 items, asked of the
	// simulator").
	Title string
	// Accuracy is a task probe's accuracy with its Wilson 95% interval,
	// the unparseable and truncated answers and the mean completion
	// tokens.
	Accuracy string
	// Paired says how many items were left out of the pairing (reports
	// whose item sets differ).
	Paired string
	// Against is the paired change: the delta in points with its
	// interval, the flips both ways and the exact McNemar p; for the
	// agreement probe, the agreement with its ± and the prompts that
	// diverged.
	Against string
	// Verdict is the comparison in one sentence (Comparison.Verdict).
	Verdict string
	// Lost is true when the verdict is a significant loss.
	Lost bool
	// Categories are the per-category deltas.
	Categories []CategoryRow
	// Tokens is the completion-token inflation and the max_tokens,
	// truncation and unparseable counts on both sides.
	Tokens string
	// KL is the agreement probe's approximate KL divergence with its ±.
	KL string
}

// CategoryRow is one category's paired change as table cells: "2 steps",
// "67 items", "-9.0 points", "(6 lost, 0 gained, p = 0.031)".
type CategoryRow struct {
	Name, Items, Delta, Flips string
}

// Line is the row as one aligned text line (names up to ten characters
// line up).
func (c CategoryRow) Line() string {
	return fmt.Sprintf("  %-10s %9s  %12s  %s", c.Name, c.Items, c.Delta, c.Flips)
}

// Answered names what answered a result: the simulator with its flags, an
// imported report's server and model, or the endpoint's address.
func Answered(r *Result) string {
	what := r.Endpoint
	if r.Source != "" {
		what = fmt.Sprintf("%s (%s report of %s)", r.Endpoint, r.Source, r.Model)
	}
	if r.Simulated {
		what = "the simulator"
		if len(r.Flags) > 0 {
			what += " (" + strings.Join(r.Flags, " ") + ")"
		}
	}
	return what
}

// NewReport writes r and, when base is not nil, its paired comparison
// with base (Compare or CompareAgreement; their refusal is the error).
func NewReport(r, base *Result) (*Report, error) {
	what := Answered(r)
	if r.Dataset == nil {
		return agreementReport(r, base, what)
	}
	a := r.Accuracy()
	rep := &Report{
		Title:    fmt.Sprintf("%s on %s (sha256 %.12s…), %d items, asked of %s", r.Probe, r.Dataset.Name, r.Dataset.SHA256, a.N, what),
		Accuracy: r.Text(),
	}
	if base == nil {
		return rep, nil
	}
	c, err := Compare(base, r)
	if err != nil {
		return nil, err
	}
	if c.BaselineOnly+c.CandidateOnly > 0 {
		rep.Paired = fmt.Sprintf("paired on the %d items both scored (%d only in the baseline, %d only here, left out, as %s pairs them)",
			c.N, c.BaselineOnly, c.CandidateOnly, SeedTool)
	}
	rep.Against = fmt.Sprintf("against the baseline (%.1f%%): %+.1f points, 95%% CI %+.1f to %+.1f; %d right only in the baseline, %d only in this run; exact McNemar %s",
		100*c.Baseline.Share, c.DeltaPoints, c.DeltaCI95.Lo, c.DeltaCI95.Hi, c.RightOnlyBaseline, c.RightOnlyCandidate, PText(c.McNemarP))
	rep.Verdict, rep.Lost = c.Verdict(), c.Loses()
	for _, k := range c.Categories {
		rep.Categories = append(rep.Categories, CategoryRow{Name: k.Name, Items: fmt.Sprintf("%d items", k.N),
			Delta: fmt.Sprintf("%+.1f points", k.DeltaPoints), Flips: fmt.Sprintf("(%d lost, %d gained, %s)", k.Lost, k.Gained, PText(k.McNemarP))})
	}
	rep.Tokens = "completion tokens: " + c.TokensText()
	return rep, nil
}

// agreementReport is NewReport for the agreement probe: alone it only
// records the continuations; against a baseline it gives the agreement
// and the KL divergence, each with its 95% half-width over prompts.
func agreementReport(r, base *Result, what string) (*Report, error) {
	rep := &Report{Title: fmt.Sprintf("agreement: %s, asked of %s", r.Text(), what)}
	if base == nil {
		return rep, nil
	}
	ag, err := CompareAgreement(base, r)
	if err != nil {
		return nil, err
	}
	rep.Against = fmt.Sprintf("against the baseline: %.1f%% ± %.1f%% of tokens identical before the first divergence (%d of %d prompts diverged; %.0f%% identical after it)",
		100*ag.PrefixShare, 100*ag.PrefixShareCI95, ag.Diverged, ag.Prompts, 100*ag.AfterShare)
	rep.KL = fmt.Sprintf("approximate KL divergence over the top-k: %.4f ± %.4f nats per token at shared-prefix positions", ag.KL, ag.KLCI95)
	return rep, nil
}

// Lines is the report as the CLI prints it, one line per part in reading
// order ("verdict: " before the verdict).
func (r *Report) Lines() []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	add(r.Title)
	add(r.Accuracy)
	add(r.Paired)
	add(r.Against)
	if r.Verdict != "" {
		add("verdict: " + r.Verdict)
	}
	for _, c := range r.Categories {
		add(c.Line())
	}
	add(r.Tokens)
	add(r.KL)
	return out
}
