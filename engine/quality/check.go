package quality

import (
	"encoding/json"
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Check is a run's quality section (rundoc.Quality) read back typed: the
// probe's result and, against a baseline, the pairing. Reports, the CLI's
// show, Tune and the app read a run's quality through it, so none of them
// decodes the documents its own way.
type Check struct {
	// Probe names what was measured ("gsm8k:200", "agreement").
	Probe string
	// Result is the probe's result; nil when the probe failed (Error).
	Result *Result
	// Error is why the probe failed.
	Error string
	// Baseline is the pairing with the baseline's probe; nil without one.
	Baseline *Pairing
}

// Pairing is a probe paired with its baseline's: a task probe's
// Comparison or the agreement probe's Agreement, or why the two could not
// be paired.
type Pairing struct {
	// RunID is the baseline run's UUID ("" when it came from a file) and
	// Label names it for a reader ("your flags").
	RunID, Label string
	// Task is set for a task probe (gsm8k:N), Agreement for the agreement
	// probe.
	Task      *Comparison
	Agreement *Agreement
	// Error is why the pairing was refused (Comparable's sentence).
	Error string
}

// Pair compares cand with base, the probe of run runID named label. A
// refusal is kept as the pairing's Error, not returned: the candidate's
// own result still stands.
func Pair(base, cand *Result, runID, label string) *Pairing {
	p := &Pairing{RunID: runID, Label: label}
	var err error
	if cand.Dataset != nil {
		p.Task, err = Compare(base, cand)
	} else {
		p.Agreement, err = CompareAgreement(base, cand)
	}
	if err != nil {
		p.Task, p.Agreement, p.Error = nil, nil, err.Error()
	}
	return p
}

// Loses applies the rule of METHOD.md ("Quality in Tune"): a candidate
// loses quality when the paired test shows a significant loss. For a task
// probe that is an exact McNemar p < 0.05 with a negative change; for the
// agreement probe, a 95% interval of the identical-prefix share that
// stays below 100% (the divergence is systematic, not one prompt's slip).
// known is false when there is nothing to judge by (the pairing was
// refused).
func (p *Pairing) Loses() (loses, known bool) {
	switch {
	case p == nil:
		return false, false
	case p.Task != nil:
		return p.Task.Loses(), true
	case p.Agreement != nil:
		return p.Agreement.Loses(), true
	}
	return false, false
}

// Loses reports a significant loss of accuracy: McNemarP < 0.05 and a
// negative change (a significant gain is no loss).
func (c *Comparison) Loses() bool { return c.Significant && c.DeltaPoints < 0 }

// Loses reports a systematic divergence from the baseline: the upper end
// of the identical-prefix share's 95% interval is below 1.
func (a *Agreement) Loses() bool { return a.Prompts > 0 && a.PrefixShare+a.PrefixShareCI95 < 1 }

// Short words the pairing in a few words for a table or a verdict:
// "gsm8k:200 −4.1 points (p = 0.0030)", "agreement 31.8% ± 27.5%".
func (p *Pairing) Short(probe string) string {
	switch {
	case p == nil:
		return ""
	case p.Task != nil:
		return fmt.Sprintf("%s %s points (%s)", probe, signed(p.Task.DeltaPoints), PText(p.Task.McNemarP))
	case p.Agreement != nil:
		return fmt.Sprintf("%s %.1f%% ± %.1f%%", probe, 100*p.Agreement.PrefixShare, 100*p.Agreement.PrefixShareCI95)
	}
	return probe + " not paired: " + p.Error
}

// signed writes points with a real minus sign ("−4.1", "+0.5").
func signed(x float64) string {
	if x < 0 {
		return fmt.Sprintf("−%.1f", -x)
	}
	return fmt.Sprintf("+%.1f", x)
}

// Text is the pairing in one sentence: the change with its interval,
// flips and p (or the agreement and KL with their ±), then the verdict.
func (p *Pairing) Text() string {
	switch {
	case p.Task != nil:
		c := p.Task
		verdict := fmt.Sprintf("no significant change; with %d items a loss below %.1f points would likely go unseen", c.N, c.MinDetectableLossPoints)
		switch {
		case c.Loses():
			verdict = "a significant loss"
		case c.Significant:
			verdict = "a significant gain"
		}
		return fmt.Sprintf("%s points, 95%% CI %s to %s; %d right only in the baseline, %d only in this run; exact McNemar %s: %s",
			signed(c.DeltaPoints), signed(c.DeltaCI95.Lo), signed(c.DeltaCI95.Hi), c.RightOnlyBaseline, c.RightOnlyCandidate, PText(c.McNemarP), verdict)
	case p.Agreement != nil:
		a := p.Agreement
		verdict := "no systematic divergence"
		if a.Loses() {
			verdict = "a systematic divergence"
		}
		return fmt.Sprintf("%.1f%% ± %.1f%% of tokens identical before the first divergence (%d of %d prompts diverged); approximate KL %.4f ± %.4f nats per token: %s",
			100*a.PrefixShare, 100*a.PrefixShareCI95, a.Diverged, a.Prompts, a.KL, a.KLCI95, verdict)
	}
	return "could not be paired: " + p.Error
}

// Text is a result in one line: a task probe's accuracy with its Wilson
// interval and what qualifies it, or what the agreement probe asked.
func (r *Result) Text() string {
	if r.Dataset != nil {
		a := r.Accuracy()
		return fmt.Sprintf("accuracy %.1f%% (%d/%d), 95%% CI %.1f–%.1f%% (Wilson); %d unparseable, %d cut at max_tokens before answering (%d hit it); mean %.0f completion tokens",
			100*a.Share, a.Correct, a.N, 100*a.CI95.Lo, 100*a.CI95.Hi, a.Unparseable, a.Truncated, a.HitMax, a.MeanTokens)
	}
	tokens := 0
	for _, p := range r.Prompts {
		tokens = max(tokens, len(p.Tokens))
	}
	return fmt.Sprintf("%d prompts × %d greedy tokens with top-k logprobs", len(r.Prompts), tokens)
}

// Doc is the check as the run document keeps it.
func (c *Check) Doc() (*rundoc.Quality, error) {
	q := &rundoc.Quality{Probe: c.Probe, Error: c.Error}
	if c.Result != nil {
		raw, err := json.Marshal(c.Result)
		if err != nil {
			return nil, fmt.Errorf("quality result: %w", err)
		}
		q.Result = raw
	}
	if p := c.Baseline; p != nil {
		q.Baseline = &rundoc.QualityBaseline{RunID: p.RunID, Label: p.Label, Error: p.Error}
		var v any
		switch {
		case p.Task != nil:
			v = p.Task
		case p.Agreement != nil:
			v = p.Agreement
		}
		if v != nil {
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("quality comparison: %w", err)
			}
			q.Baseline.Comparison = raw
		}
	}
	return q, nil
}

// FromRun reads a run's quality section back (nil for a run without
// one). A document another program wrote is checked: the result must be
// rigbench.quality/v1 of the probe named, and the comparison of the
// result's kind.
func FromRun(q *rundoc.Quality) (*Check, error) {
	if q == nil {
		return nil, nil
	}
	c := &Check{Probe: q.Probe, Error: q.Error}
	if len(q.Result) > 0 {
		var r Result
		if err := json.Unmarshal(q.Result, &r); err != nil {
			return nil, fmt.Errorf("quality.result is not a quality result: %v", err)
		}
		if r.Kind != Kind {
			return nil, fmt.Errorf("quality.result is a %q document, not %s", r.Kind, Kind)
		}
		if r.Probe != q.Probe {
			return nil, fmt.Errorf("quality.result measured %q but the run names the probe %q", r.Probe, q.Probe)
		}
		c.Result = &r
	} else if q.Error == "" {
		return nil, fmt.Errorf("quality holds neither a result nor the probe's error")
	}
	if b := q.Baseline; b != nil {
		p := &Pairing{RunID: b.RunID, Label: b.Label, Error: b.Error}
		if len(b.Comparison) > 0 {
			if c.Result == nil {
				return nil, fmt.Errorf("quality.baseline has a comparison but quality has no result")
			}
			var err error
			if c.Result.Dataset != nil {
				p.Task = &Comparison{}
				err = json.Unmarshal(b.Comparison, p.Task)
			} else {
				p.Agreement = &Agreement{}
				err = json.Unmarshal(b.Comparison, p.Agreement)
			}
			if err != nil {
				return nil, fmt.Errorf("quality.baseline.comparison is not a comparison: %v", err)
			}
		} else if b.Error == "" {
			return nil, fmt.Errorf("quality.baseline holds neither a comparison nor why there is none")
		}
		c.Baseline = p
	}
	return c, nil
}

// TokensText words the completion-token inflation and what qualifies the
// answers: "mean 256 → 286 (×1.12), p50 257 → 288, p90 441 → 494; hit
// max_tokens 0 → 12, cut before answering 0 → 12, unparseable 0 → 12".
func (c *Comparison) TokensText() string {
	t := c.Tokens
	return fmt.Sprintf("mean %.0f → %.0f (×%.2f), p50 %.0f → %.0f, p90 %.0f → %.0f; hit max_tokens %d → %d, cut before answering %d → %d, unparseable %d → %d",
		t.BaselineMean, t.CandidateMean, t.Ratio, t.BaselineP50, t.CandidateP50, t.BaselineP90, t.CandidateP90,
		c.Baseline.HitMax, c.Candidate.HitMax, c.Baseline.Truncated, c.Candidate.Truncated, c.Baseline.Unparseable, c.Candidate.Unparseable)
}

// Text words one category's paired change: "35 items, −20.0 points (7
// lost, 0 gained, p = 0.016)".
func (k CategoryDelta) Text() string {
	return fmt.Sprintf("%d items, %s points (%d lost, %d gained, %s)", k.N, signed(k.DeltaPoints), k.Lost, k.Gained, PText(k.McNemarP))
}
