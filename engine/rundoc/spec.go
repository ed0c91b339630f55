package rundoc

import "math"

// CellSpec are a speculative decode cell's drafting figures (METHOD.md:
// Speculative decoding), from the deltas of vLLM's spec_decode counters
// and its generated-token counter over the window (the first and last
// /metrics samples inside it). Every drafted step of a sequence emits its
// accepted drafts + 1 tokens and a step without drafts (a first token
// after a prefill) emits one, so
//
//	engine steps   = Δdrafts + max(0, out − (Δaccepted + Δdrafts))
//	L_eff          = out ÷ engine steps
//	steps/s        = total tok/s ÷ L_eff
//
// where out is Δ of the generated-token counter. Steps are sequence-steps:
// one sequence advanced once. Steps/s is the engine's speed with the
// drafts' luck divided out, the figure that compares a speculative launch
// with a plain one (whose L_eff is 1, steps/s its total tok/s). Zero
// values are absent from JSON: a plain cell has none of them.
type CellSpec struct {
	// SpecDrafts, SpecDraftTokens and SpecAcceptedTokens are the deltas of
	// vllm:spec_decode_num_drafts_total, …_num_draft_tokens_total and
	// …_num_accepted_tokens_total over the span the figures cover, and
	// SpecOutputTokens the delta of the generated-token counter over it.
	SpecDrafts         int `json:"spec_drafts,omitempty"`
	SpecDraftTokens    int `json:"spec_draft_tokens,omitempty"`
	SpecAcceptedTokens int `json:"spec_accepted_tokens,omitempty"`
	SpecOutputTokens   int `json:"spec_output_tokens,omitempty"`
	// SpecAcceptRate is Δaccepted ÷ Δdraft tokens, 0–1.
	SpecAcceptRate float64 `json:"spec_accept_rate,omitempty"`
	// SpecAcceptLength is 1 + Δaccepted ÷ Δdrafts: the tokens a drafted
	// step yields (SGLang's spec_accept_length gauge where that is all the
	// server gives).
	SpecAcceptLength float64 `json:"spec_accept_length,omitempty"`
	// SpecPosAccept[i] is Δaccepted at draft position i ÷ Δdrafts: the
	// share of drafted steps that accepted position i (falling with i).
	SpecPosAccept []float64 `json:"spec_pos_accept,omitempty"`
	// EngineSteps is the sequence-steps of the span (formula above), and
	// SpecAcceptLengthEff = out ÷ EngineSteps.
	EngineSteps         float64 `json:"engine_steps,omitempty"`
	SpecAcceptLengthEff float64 `json:"spec_accept_length_eff,omitempty"`
	// StepsPerS is total tok/s ÷ SpecAcceptLengthEff, and StepsPerSCI95
	// its 95% half-width (total tok/s's ÷ the same L_eff).
	StepsPerS     float64 `json:"steps_per_s,omitempty"`
	StepsPerSCI95 float64 `json:"steps_per_s_ci95,omitempty"`
	// ProjectedTokS is StepsPerS × Plan.AcceptLenRef: the rate the engine
	// would reach at the reference acceptance length, so runs on prompts
	// that draft differently compare on one footing.
	ProjectedTokS float64 `json:"projected_tok_s,omitempty"`
}

// Speculative reports whether the cell carries drafting figures.
func (c *CellSpec) Speculative() bool { return c.SpecAcceptLengthEff > 0 }

// MaxSpecPositions bounds SpecPosAccept: no drafter proposes more than a
// handful of tokens per step.
const MaxSpecPositions = 64

// SpecDelta is what the spec figures are derived from: deltas of a
// server's counters over one span.
type SpecDelta struct {
	// Counted is true when the server's spec_decode counters were read
	// (vLLM); false for SGLang's gauge alone.
	Counted                       bool
	Drafts, DraftTokens, Accepted float64
	AcceptedPerPos                []float64
	// Output is Δ of the generated-token counter over the same span.
	Output float64
	// AcceptLength is SGLang's spec_accept_length gauge (0 for vLLM).
	AcceptLength float64
}

// MaxAcceptLength is the most tokens a drafted step can yield: every
// draft position accepted, plus the step's own token.
const MaxAcceptLength = MaxSpecPositions + 1

// Valid reports whether d can be a drafting server's: counts that are not
// negative, no more accepted tokens than drafted, every drafted step
// emitting at least its own token (out ≥ Δdrafts), and a gauge within
// MaxAcceptLength. A server that breaks these is not believed: the cell
// gets no drafting figures rather than ones its own import would refuse.
func (d SpecDelta) Valid() bool {
	if !d.Counted {
		return d.AcceptLength >= 1 && d.AcceptLength <= MaxAcceptLength
	}
	for _, x := range append([]float64{d.Drafts, d.DraftTokens, d.Accepted, d.Output}, d.AcceptedPerPos...) {
		if !(x >= 0 && x <= math.MaxInt32) {
			return false
		}
	}
	return d.Output > 0 && d.Accepted <= d.DraftTokens && d.Output >= d.Drafts && d.Accepted <= d.Drafts*MaxSpecPositions
}

// SetSpec fills c's drafting figures from d and c's total tok/s (and its
// ±), with ProjectedTokS at refLen when refLen > 0. It leaves c as it was
// when d is not Valid. A span whose server counted but proposed no draft
// (an n-gram drafter that found nothing to copy) has out steps of one
// token each: L_eff 1, steps/s its total tok/s, and no acceptance.
func SetSpec(c *Cell, d SpecDelta, refLen float64) {
	if !d.Valid() {
		return
	}
	var s CellSpec
	if d.Counted {
		s.SpecDrafts, s.SpecDraftTokens = int(d.Drafts), int(d.DraftTokens)
		s.SpecAcceptedTokens, s.SpecOutputTokens = int(d.Accepted), int(d.Output)
		if d.DraftTokens > 0 {
			s.SpecAcceptRate = round4(d.Accepted / d.DraftTokens)
		}
		if d.Drafts > 0 {
			s.SpecAcceptLength = round4(1 + d.Accepted/d.Drafts)
			for i, a := range d.AcceptedPerPos {
				if i >= MaxSpecPositions {
					break
				}
				s.SpecPosAccept = append(s.SpecPosAccept, round4(min(a/d.Drafts, 1)))
			}
		}
		steps := d.Drafts + math.Max(0, d.Output-(d.Accepted+d.Drafts))
		s.EngineSteps = math.Round(steps)
		s.SpecAcceptLengthEff = round4(d.Output / steps)
	} else {
		// SGLang gives only its recent acceptance length.
		s.SpecAcceptLength, s.SpecAcceptLengthEff = round4(d.AcceptLength), round4(d.AcceptLength)
	}
	if c.TotalTokS > 0 {
		steps := c.TotalTokS / s.SpecAcceptLengthEff
		s.StepsPerS = round1(steps)
		s.StepsPerSCI95 = round1(c.TotalTokSCI95 / s.SpecAcceptLengthEff)
		if refLen > 0 {
			s.ProjectedTokS = round1(steps * refLen)
		}
	}
	c.CellSpec = s
}

// IsZero reports whether s holds no drafting figure at all (a plain cell).
func (s CellSpec) IsZero() bool {
	return s.SpecDrafts == 0 && s.SpecDraftTokens == 0 && s.SpecAcceptedTokens == 0 && s.SpecOutputTokens == 0 &&
		s.SpecAcceptRate == 0 && s.SpecAcceptLength == 0 && len(s.SpecPosAccept) == 0 && s.EngineSteps == 0 &&
		s.SpecAcceptLengthEff == 0 && s.StepsPerS == 0 && s.StepsPerSCI95 == 0 && s.ProjectedTokS == 0
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// The drafting figures in the registry (figures.go): optional columns,
// shown only when some cell drafted.
var (
	// FigSpecAcceptRate is the share of draft tokens accepted.
	// A rate of 0 is a figure where drafts were proposed (all rejected).
	FigSpecAcceptRate = Figure{Key: "spec_accept_rate", Label: "accepted %", Title: "Accepted %", Unit: "%", Decimals: 1, Better: Higher,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return 100 * c.SpecAcceptRate },
		zeroCounts: func(c *Cell) bool { return c.SpecDraftTokens > 0 }}
	// FigSpecAcceptLength is the tokens per sequence-step, first tokens
	// included (L_eff).
	FigSpecAcceptLength = Figure{Key: "spec_accept_length_eff", Label: "tokens/step", Title: "Tokens/step", Decimals: 2, Better: Higher,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.SpecAcceptLengthEff }}
	// FigStepsPerS is the engine's sequence-steps per second.
	FigStepsPerS = Figure{Key: "steps_per_s", Label: "steps/s", Title: "Steps/s", Unit: "steps/s", Decimals: 1, Better: Higher,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.StepsPerS }}
	// FigProjectedTokS is steps/s at the reference acceptance length.
	FigProjectedTokS = Figure{Key: "projected_tok_s", Label: "projected tok/s", Title: "Projected tok/s", Unit: "tok/s", Decimals: 1, Better: Higher,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.ProjectedTokS }}
)

// SpecText is a drafting cell's figures in one phrase: "accepted 61.0%,
// 2.18 tokens/step, 40.8 steps/s"; "" for a cell that did not draft.
func SpecText(c *Cell) string {
	if c == nil || !c.Speculative() {
		return ""
	}
	s := ""
	if t := FigSpecAcceptRate.Text(c); t != "" {
		s = "accepted " + t + "%, "
	}
	s += FigSpecAcceptLength.Text(c) + " tokens/step"
	if t := FigStepsPerS.WithUnit(c); t != "" {
		s += ", " + t
	}
	return s
}

// spec checks CellSpec on import (ValidateRun).
func (v *validator) spec(where string, s CellSpec) {
	for _, n := range []struct {
		name string
		v    int
	}{{"spec_drafts", s.SpecDrafts}, {"spec_draft_tokens", s.SpecDraftTokens}, {"spec_accepted_tokens", s.SpecAcceptedTokens}, {"spec_output_tokens", s.SpecOutputTokens}} {
		v.intRange(where+": "+n.name, n.v, 0, math.MaxInt32)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"engine_steps", s.EngineSteps}, {"steps_per_s", s.StepsPerS}, {"steps_per_s_ci95", s.StepsPerSCI95}, {"projected_tok_s", s.ProjectedTokS}} {
		v.num(where+": "+f.name, f.v)
	}
	if !(s.SpecAcceptRate >= 0 && s.SpecAcceptRate <= 1) {
		v.fail("%s: spec_accept_rate is %v, want a share from 0 to 1", where, s.SpecAcceptRate)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"spec_accept_length", s.SpecAcceptLength}, {"spec_accept_length_eff", s.SpecAcceptLengthEff}} {
		if !(f.v == 0 || f.v >= 1 && f.v <= MaxAcceptLength) {
			v.fail("%s: %s is %v, want 1 to %d tokens per step", where, f.name, f.v, MaxAcceptLength)
		}
	}
	v.count(where+": spec_pos_accept", len(s.SpecPosAccept), MaxSpecPositions)
	for i, p := range s.SpecPosAccept {
		if !(p >= 0 && p <= 1) {
			v.fail("%s: spec_pos_accept[%d] is %v, want a share from 0 to 1", where, i, p)
		}
	}
}
