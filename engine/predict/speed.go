package predict

import (
	"strings"
	"sync"

	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Efficiency is how much of a card's data-sheet peaks a server reaches in
// each part of the simulator's time model (sim.Profile). Shares of a peak
// carry from one model to another on the same card; the shape terms
// (BatchExponent, the quadratic ratios) and the front end are the
// card's too. A prediction turns them into a profile (Profile):
//
//	StepBaseS              = weights bytes ÷ (peak bandwidth × Weights)
//	DecodePerSeqS          = 2 × params ÷ (peak FLOP/s × Seq)
//	DecodePerContextTokenS = KV bytes per token ÷ (peak bandwidth × KV)
//	DecodeContextQuadS     = DecodePerContextTokenS × KVQuad
//	PrefillPerTokenS       = 2 × params ÷ (peak FLOP/s × Prefill)
//	PrefillAttentionS      = PrefillPerTokenS × PrefillQuad
//
// so one decode step of b streams at context c lasts StepBaseS +
// DecodePerSeqS × b + b^q × a(c) (sim.Profile.DecodeStepS).
type Efficiency struct {
	// Weights is the share of peak bandwidth a step reaches reading every
	// weight once.
	Weights float64 `json:"weights"`
	// Seq is the share of peak tensor FLOP/s of one sequence's token in a
	// decode step (2 FLOPs per parameter).
	Seq float64 `json:"seq"`
	// KV is the share of peak bandwidth reading one sequence's KV cache
	// (16-bit bytes, whatever the cache dtype).
	KV float64 `json:"kv"`
	// KVQuad is the quadratic part of a sequence's attention per context
	// token, relative to the linear part (1/tokens).
	KVQuad float64 `json:"kv_quad"`
	// BatchExponent is q of b^q (1: the batch's attention is linear in b).
	BatchExponent float64 `json:"batch_exponent"`
	// Prefill is the share of peak FLOP/s computing a prompt's tokens.
	Prefill float64 `json:"prefill"`
	// PrefillQuad is prefill attention per token pair relative to the
	// linear cost per token (1/tokens): the context at which attention
	// costs as much as the rest is 1/PrefillQuad.
	PrefillQuad float64 `json:"prefill_quad"`
	// APIBaseS, APIPerTokenS, APILogS and APILogTokens are the front end's
	// serial cost per request (sim.Profile.APILogS gives the formula).
	APIBaseS     float64 `json:"api_base_s"`
	APIPerTokenS float64 `json:"api_per_token_s,omitempty"`
	APILogS      float64 `json:"api_log_s,omitempty"`
	APILogTokens float64 `json:"api_log_tokens,omitempty"`

	// Source says where the figures come from: "simulator profile NAME",
	// SourceGeneric, or learned (Runs > 0).
	Source string `json:"source"`
	// Runs is how many measured runs the figures were learned from.
	Runs int `json:"runs,omitempty"`
	// Uncertainty is the relative uncertainty of a decode figure predicted
	// with them (0.15 for ±15%): see uncertainty in METHOD.md.
	Uncertainty float64 `json:"uncertainty"`
}

// SourceGeneric: no profile of the card and no run on it; the
// efficiencies are the mean of the simulator profiles' (two cards, two
// models), so the uncertainty is wide.
const SourceGeneric = "generic (no run on this card yet)"

// Uncertainties of a prediction before learning, by how close the prior
// is to the launch: the profile of this card and model, a profile of this
// card with another model, or neither.
const (
	uncertaintySameProfile = 0.10
	uncertaintySameCard    = 0.25
	uncertaintyGeneric     = 0.40
)

// cardOf is the card a simulator profile imitates, with the profile's own
// memory and bandwidth and the data sheet's TFLOPS.
func cardOf(p sim.Profile) Card {
	c := Card{Name: p.GPUName, MemoryGiB: p.GPUMemoryGiB, BandwidthGBs: p.PeakBandwidthGBs, Source: SourceProfile + " " + p.Name}
	if k, err := FindCard(p.GPUName); err == nil {
		c.TFLOPS = k.TFLOPS
	}
	return c
}

// ProfileEfficiency is a simulator profile's time model as efficiencies
// of the card it imitates: the inverse of Profile.
func ProfileEfficiency(p sim.Profile) Efficiency {
	card, m := cardOf(p), ProfileModel(p)
	bw, fl := card.BandwidthGBs*1e9, card.TFLOPS*1e12
	e := Efficiency{
		Weights:       ratio(m.WeightsGiB*vllm.GiB, bw*p.StepBaseS),
		Seq:           ratio(2*m.Params, fl*p.DecodePerSeqS),
		KV:            ratio(m.KVBytesPerToken, bw*p.DecodePerContextTokenS),
		KVQuad:        ratio(p.DecodeContextQuadS, p.DecodePerContextTokenS),
		BatchExponent: p.DecodeBatchExponent,
		Prefill:       ratio(2*m.Params, fl*p.PrefillPerTokenS),
		PrefillQuad:   ratio(p.PrefillAttentionS, p.PrefillPerTokenS),
		APIBaseS:      p.APIBaseS, APIPerTokenS: p.APIPerTokenS, APILogS: p.APILogS, APILogTokens: p.APILogTokens,
		Source:      "simulator profile " + p.Name,
		Uncertainty: uncertaintySameProfile,
	}
	if e.BatchExponent == 0 {
		e.BatchExponent = 1
	}
	return e
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// priorProfiles are the profiles the efficiencies start from: one card
// each (a two-card profile's card is the one-card profile's).
var priorProfiles = []string{"rtx3060-12gb", "h100-80gb"}

// Prior is the efficiencies a prediction starts from before any run:
// those of the simulator profile of this card and model, else of a profile
// of this card, else the mean of the profiles' (SourceGeneric).
func Prior(card Card, model string) Efficiency {
	var sameCard *Efficiency
	var all []Efficiency
	for _, pe := range priors() {
		p, e := pe.p, pe.e
		all = append(all, e)
		if normCard(p.GPUName) != normCard(card.Name) {
			continue
		}
		if strings.EqualFold(p.Model, model) {
			return e
		}
		e.Uncertainty = uncertaintySameCard
		e.Source += " (another model)"
		sameCard = &e
	}
	if sameCard != nil {
		return *sameCard
	}
	g := mean(all)
	g.Source, g.Uncertainty = SourceGeneric, uncertaintyGeneric
	return g
}

// profilePrior is a prior profile with its efficiencies.
type profilePrior struct {
	p sim.Profile
	e Efficiency
}

// priors are the prior profiles with their efficiencies, computed once.
var priors = sync.OnceValue(func() []profilePrior {
	var out []profilePrior
	for _, name := range priorProfiles {
		p, _ := sim.ProfileByName(name)
		out = append(out, profilePrior{p, ProfileEfficiency(p)})
	}
	return out
})

// mean averages efficiencies field by field.
func mean(es []Efficiency) Efficiency {
	var m Efficiency
	f := 1 / float64(len(es))
	for _, e := range es {
		m.Weights += e.Weights * f
		m.Seq += e.Seq * f
		m.KV += e.KV * f
		m.KVQuad += e.KVQuad * f
		m.BatchExponent += e.BatchExponent * f
		m.Prefill += e.Prefill * f
		m.PrefillQuad += e.PrefillQuad * f
		m.APIBaseS += e.APIBaseS * f
		m.APIPerTokenS += e.APIPerTokenS * f
		m.APILogS += e.APILogS * f
		m.APILogTokens += e.APILogTokens * f
	}
	return m
}
