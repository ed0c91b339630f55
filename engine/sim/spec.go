package sim

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Speculation is a launch's speculative decoding as the simulator models it
// (--speculative-config): the method that drafts and how many tokens it
// drafts ahead of each decode step.
type Speculation struct {
	// Method is "mtp", "eagle", "eagle3", "ngram" or "draft_model" (a
	// separate draft model named by the config's "model").
	Method string
	// Tokens is num_speculative_tokens, k: each drafted step proposes k
	// tokens, and the step verifies them together with the next one.
	Tokens int
}

// specMethods are the methods the simulator drafts with, in the order its
// error message lists them. vLLM spells a model's own MTP head
// "deepseek_mtp", "qwen3_next_mtp" and so on; they read as "mtp".
var specMethods = []string{"draft_model", "eagle", "eagle3", "mtp", "ngram"}

// maxSpecTokens bounds num_speculative_tokens (vllm.MaxSpeculativeTokens):
// the per-position counters are one series each.
const maxSpecTokens = vllm.MaxSpeculativeTokens

// parseSpeculativeConfig reads --speculative-config's JSON as vLLM's
// SpeculativeConfig does, with its error wording: a JSON object with
// "method" (or "model" alone, a draft model) and "num_speculative_tokens".
// "{}" and "null" turn speculation off.
func parseSpeculativeConfig(v string) (*Speculation, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "null" || v == "{}" {
		return nil, nil
	}
	var raw struct {
		Method *string `json:"method"`
		Model  *string `json:"model"`
		Tokens *int    `json:"num_speculative_tokens"`
	}
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, argErr("argument --speculative-config: invalid loads value: '%s'", v)
	}
	s := &Speculation{}
	switch {
	case raw.Method != nil:
		s.Method = strings.ToLower(*raw.Method)
		if strings.HasSuffix(s.Method, "_mtp") {
			s.Method = "mtp"
		}
	case raw.Model != nil && *raw.Model != "":
		s.Method = "draft_model"
		if strings.Contains(strings.ToLower(*raw.Model), "ngram") || *raw.Model == "[ngram]" {
			s.Method = "ngram"
		}
	default:
		return nil, argErr("argument --speculative-config: the config names no \"method\" (choose from %s) and no draft \"model\"", strings.Join(specMethods, ", "))
	}
	if !slices.Contains(specMethods, s.Method) {
		return nil, argErr("argument --speculative-config: method '%s' is not supported (choose from %s)", s.Method, strings.Join(specMethods, ", "))
	}
	if raw.Tokens == nil {
		return nil, argErr("argument --speculative-config: num_speculative_tokens must be provided with speculative decoding (method '%s')", s.Method)
	}
	if *raw.Tokens < 1 || *raw.Tokens > maxSpecTokens {
		return nil, argErr("argument --speculative-config: num_speculative_tokens must be between 1 and %d (got %d)", maxSpecTokens, *raw.Tokens)
	}
	s.Tokens = *raw.Tokens
	return s, nil
}

// SpecModel is a profile's speculative decoding: what a draft costs and
// how often the target model accepts it. Acceptance is stated per method
// and depends on the prompt's text through its repetition r (the share of
// the prompt's token trigrams seen earlier in it, 0–1):
//
//	α(r)  = min(0.98, First + TextGain × r)   position 1's acceptance
//	p_i   = α(r) × Decay^(i−1)                position i's, given i−1 was
//
// so an n-gram drafter, which copies spans of the prompt, accepts far more
// on repetitive text (TextGain large, First small), a trained head a
// little more. A drafted step emits its accepted prefix plus the verified
// next token: accepted + 1 tokens.
type SpecModel struct {
	// MTP, Eagle, Eagle3, DraftModel and NGram are each method's
	// acceptance.
	MTP, Eagle, Eagle3, DraftModel, NGram SpecAcceptance
	// Decay is each later position's acceptance as a share of the one
	// before it (drafts grow less certain with depth).
	Decay float64
	// DraftShare is a drafting model's cost (mtp, eagle, eagle3,
	// draft_model) per drafted token, as a share of the step's cost
	// without drafting: an MTP head is one extra layer, a draft model a
	// small forward pass. The n-gram drafter runs on the CPU between steps
	// and costs nothing on the card.
	DraftShare float64
	// VerifyPerTokenS is the added step cost of verifying one drafted
	// token of one sequence (the target model computes k + 1 positions
	// instead of 1; on a bandwidth-bound card this is small).
	VerifyPerTokenS float64
}

// SpecAcceptance is one method's acceptance at the first drafted position.
type SpecAcceptance struct {
	First, TextGain float64
}

// DefaultSpecModel is the profiles' speculative decoding: acceptance rates
// in the ranges published for MTP heads (about 0.8 at position 1), EAGLE
// (0.6–0.75) and n-gram lookup (high only on repetitive text).
func DefaultSpecModel() SpecModel {
	return SpecModel{
		MTP:             SpecAcceptance{First: 0.78, TextGain: 0.15},
		Eagle:           SpecAcceptance{First: 0.62, TextGain: 0.15},
		Eagle3:          SpecAcceptance{First: 0.70, TextGain: 0.15},
		DraftModel:      SpecAcceptance{First: 0.60, TextGain: 0.15},
		NGram:           SpecAcceptance{First: 0.08, TextGain: 0.85},
		Decay:           0.85,
		DraftShare:      0.04,
		VerifyPerTokenS: 0.00004,
	}
}

// orDefault is m, or DefaultSpecModel where m is the zero value (a
// profile built field by field, as engine/predict's are).
func (m SpecModel) orDefault() SpecModel {
	if m == (SpecModel{}) {
		return DefaultSpecModel()
	}
	return m
}

// acceptance is method's SpecAcceptance.
func (m SpecModel) acceptance(method string) SpecAcceptance {
	switch method {
	case "mtp":
		return m.MTP
	case "eagle":
		return m.Eagle
	case "eagle3":
		return m.Eagle3
	case "draft_model":
		return m.DraftModel
	case "ngram":
		return m.NGram
	}
	return SpecAcceptance{}
}

// Probabilities are p_1 … p_k for a prompt of repetition r: each
// position's acceptance given that the one before it was accepted.
func (m SpecModel) Probabilities(method string, k int, r float64) []float64 {
	m = m.orDefault()
	a := m.acceptance(method)
	first := min(0.98, a.First+a.TextGain*min(max(r, 0), 1))
	p := make([]float64, k)
	for i := range p {
		p[i] = first * math.Pow(m.Decay, float64(i))
	}
	return p
}

// ExpectedAccepted is the mean number of accepted tokens per drafted step,
// Σ_i Π_{j≤i} p_j, for the probabilities of Probabilities.
func ExpectedAccepted(p []float64) float64 {
	e, reach := 0.0, 1.0
	for _, x := range p {
		reach *= x
		e += reach
	}
	return e
}

// drafts reports whether the method's drafter runs on the card.
func (s *Speculation) drafts() bool { return s != nil && s.Method != "ngram" }

// Repetition is the share of a token sequence's trigrams that occurred
// earlier in it (0 for fewer than four tokens): how much an n-gram drafter
// finds to copy.
func Repetition(tokens []uint32) float64 {
	if len(tokens) < 4 {
		return 0
	}
	seen := make(map[[3]uint32]struct{}, len(tokens))
	repeats := 0
	for i := 2; i < len(tokens); i++ {
		g := [3]uint32{tokens[i-2], tokens[i-1], tokens[i]}
		if _, ok := seen[g]; ok {
			repeats++
		} else {
			seen[g] = struct{}{}
		}
	}
	return float64(repeats) / float64(len(tokens)-2)
}

// specCounters are vLLM's four spec_decode counters.
type specCounters struct {
	drafts, draftTokens, accepted int64
	perPos                        []int64
}

// maxSpecLog bounds the speculative truth a server keeps (about 6 MB):
// the latest steps, hours of a busy card's, enough for any cell's window.
const maxSpecLog = 1 << 17

// specRecord is one step of a speculative engine in the ground truth: when
// it ended (simulated seconds), the sequence-steps that produced tokens,
// the drafts and draft tokens proposed, the tokens accepted and the tokens
// emitted.
type specRecord struct {
	end                                          float64
	seqSteps, drafts, draftTokens, accepted, out int
}

// SpecTruth is what a speculative simulator did over a span of time:
// counts the tests derive every measured figure from.
type SpecTruth struct {
	// SeqSteps counts each sequence's steps that produced tokens (a
	// drafted step, or a first token after its prefill).
	SeqSteps int
	// Drafts, DraftTokens and Accepted are what vLLM's counters add up.
	Drafts, DraftTokens, Accepted int
	// Tokens is the output tokens of those steps.
	Tokens int
}

// AcceptRate is Accepted ÷ DraftTokens.
func (t SpecTruth) AcceptRate() float64 { return ratio(t.Accepted, t.DraftTokens) }

// EffectiveLength is Tokens ÷ SeqSteps: the tokens each sequence-step
// yields, first tokens included.
func (t SpecTruth) EffectiveLength() float64 { return ratio(t.Tokens, t.SeqSteps) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// specAccepted draws how many of a step's k drafts the target model
// accepts: position i is accepted with probability p_i if every position
// before it was. The draw is a hash of the sequence's key and its output
// count, so a run is reproducible and one request's acceptance does not
// depend on the others in the batch.
func specAccepted(s *seq, p []float64) int {
	for i, pi := range p {
		u := float64(mix64(s.key^uint64(s.output+1)*0x9e3779b97f4a7c15^uint64(i+1)*0xd1b54a32d192ed03)>>11) / (1 << 53)
		if u >= pi {
			return i
		}
	}
	return len(p)
}

// SpecTruth sums the ground truth of the steps that ended in [from, to):
// zero on a server that does not decode speculatively.
func (s *Server) SpecTruth(from, to time.Time) SpecTruth {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, b := s.simAt(from), s.simAt(to)
	var t SpecTruth
	for _, r := range s.core.specLog {
		if r.end >= a && r.end < b {
			t.SeqSteps += r.seqSteps
			t.Drafts += r.drafts
			t.DraftTokens += r.draftTokens
			t.Accepted += r.accepted
			t.Tokens += r.out
		}
	}
	return t
}

// withDrafts is the time of a step that took t without speculation when
// decodes of its sequences draft with sp: verifying k drafts each adds
// VerifyPerTokenS per draft token, and a drafting model runs k small
// passes of DraftShare of the step each (none for n-gram lookup):
//
//	(t + VerifyPerTokenS × k × decodes) × (1 + DraftShare × k)
func (p Profile) withDrafts(t float64, sp *Speculation, decodes int) float64 {
	if sp == nil || decodes <= 0 {
		return t
	}
	m := p.Spec.orDefault()
	t += m.VerifyPerTokenS * float64(sp.Tokens*decodes)
	if sp.drafts() {
		t *= 1 + m.DraftShare*float64(sp.Tokens)
	}
	return t
}

// SpecDecodeStepS is DecodeStepS for b sequences drafting with sp (nil:
// DecodeStepS): engine/predict predicts a speculative launch's steps
// with it, as the simulator times them.
func (p Profile) SpecDecodeStepS(sp *Speculation, b int, c float64) float64 {
	return p.withDrafts(p.DecodeStepS(b, c), sp, b)
}

// SpecTokensPerStep is the tokens a drafted step yields on average, 1 +
// ExpectedAccepted, for a prompt with nothing to copy (repetition 0: the
// prediction does not know the prompt's text); 1 for nil sp.
func (p Profile) SpecTokensPerStep(sp *Speculation) float64 {
	if sp == nil {
		return 1
	}
	return 1 + ExpectedAccepted(p.Spec.Probabilities(sp.Method, sp.Tokens, 0))
}

// SpecBandwidthFraction is BandwidthFraction for one stream decoding at
// context 0 with speculation sp: its step (withDrafts) still reads the
// weights once. It is what RigBench's roofline figure, which counts steps
// by the server's spec_decode counters, should read for such a 0×1 cell.
// nil sp gives BandwidthFraction.
func (p Profile) SpecBandwidthFraction(sp *Speculation) float64 {
	if sp == nil || p.PeakBandwidthGBs <= 0 {
		return p.BandwidthFraction()
	}
	step := p.withDrafts(p.StepBaseS+p.DecodePerSeqS, sp, 1)
	return p.WeightsGiB * giB / step / (p.PeakBandwidthGBs * 1e9)
}

// recentSpecSteps is how many of the latest steps SGLang's
// spec_accept_length gauge averages over in the simulator: enough that
// the gauge's own sampling error (a step accepts 0 to k drafts) is about
// 1% at mtp:2, so it reads the acceptance rather than the last few
// steps' luck.
const recentSpecSteps = 1024

// recentAcceptLength is SGLang's spec_accept_length gauge: the tokens a
// drafted step yielded, (accepted + drafts) ÷ drafts, over the latest
// recentSpecSteps steps; 1 before any drafted step.
func (c *core) recentAcceptLength() float64 {
	drafts, accepted := 0, 0
	for i := len(c.specLog) - 1; i >= 0 && i >= len(c.specLog)-recentSpecSteps; i-- {
		drafts += c.specLog[i].drafts
		accepted += c.specLog[i].accepted
	}
	if drafts == 0 {
		return 1
	}
	return float64(accepted+drafts) / float64(drafts)
}
