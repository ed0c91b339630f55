package quality

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
)

// agreementPrompt is one of the project's own prompts for the agreement
// probe.
type agreementPrompt struct {
	id, text string
}

// agreementPrompts are varied on purpose (arithmetic, code, prose, long
// context): a lossy KV cache shows first where the model reads far back,
// quantised weights where it computes. They are the project's own text,
// fixed: their sha256 is part of the probe's profile.
var agreementPrompts = []agreementPrompt{
	{"arith-1", "Compute step by step: 37 × 48 + 129 − 56. Show each intermediate result."},
	{"arith-2", "A train leaves at 09:40 and travels 315 km at 84 km/h. At what time does it arrive? Explain."},
	{"code-1", "Write a Go function that returns the n-th Fibonacci number iteratively, with a doc comment.\n\n```go\n"},
	{"code-2", "def merge_sorted(a, b):\n    \"\"\"Merge two sorted lists into one sorted list.\"\"\"\n"},
	{"prose-1", "Write the opening paragraph of a short story about a lighthouse keeper who finds a message in a bottle."},
	{"prose-2", "Explain to a new engineer why a database index speeds up reads but slows down writes."},
	{"long-1", longContextPrompt()},
	{"long-2", "Summarise the following meeting notes in three bullet points.\n\n" + strings.Repeat("The team reviewed the release plan, agreed to move the freeze by one week, assigned the migration to Dana, and asked Lee to confirm the load-test results before Friday. ", 40)},
}

// longContextPrompt is a few thousand tokens of numbered facts followed by
// a question about an early one: the answer needs the far context.
func longContextPrompt() string {
	var b strings.Builder
	colours := []string{"red", "green", "blue", "amber", "violet", "white", "black", "silver"}
	for i := range 200 {
		fmt.Fprintf(&b, "Fact %d: box %d is %s and holds %d marbles.\n", i+1, i+1, colours[(i*5+3)%len(colours)], (i*37+11)%97)
	}
	b.WriteString("\nQuestion: what colour is box 17, and how many marbles does it hold? Answer, then list boxes 18 to 25 the same way.\n")
	return b.String()
}

// Defaults of the agreement probe.
const (
	// DefaultAgreementTokens is the greedy continuation per prompt.
	DefaultAgreementTokens = 128
	// DefaultTopK is the logprobs asked for per token (vLLM allows 20).
	DefaultTopK = 5
)

// AgreementProbe asks each of the project's prompts for a greedy
// continuation of Tokens tokens with TopK logprobs per token.
type AgreementProbe struct {
	Tokens      int
	TopK        int
	Concurrency int
	Progress    func(done, total int)
	Now         func() time.Time
}

func (p AgreementProbe) tokens() int { return cmpOr(p.Tokens, DefaultAgreementTokens) }
func (p AgreementProbe) topK() int   { return cmpOr(p.TopK, DefaultTopK) }

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Profile is the settings that decide the probe's answers: the prompts'
// sha256, the tokens and the top-k.
func (p AgreementProbe) Profile() string {
	h := sha256.New()
	for _, pr := range agreementPrompts {
		h.Write([]byte(pr.id + "\x00" + pr.text + "\x00"))
	}
	return fmt.Sprintf("agreement-v1 prompts=%.12s tokens=%d top_k=%d temperature=0", hex.EncodeToString(h.Sum(nil)), p.tokens(), p.topK())
}

// Header is the result's identity before the probe runs (TaskProbe.Header).
func (p AgreementProbe) Header() *Result {
	return &Result{Kind: Kind, Probe: "agreement", Profile: p.Profile()}
}

// Run asks model every prompt and returns the result.
func (p AgreementProbe) Run(ctx context.Context, a Answerer, model string) (*Result, error) {
	res := p.Header()
	res.Model, res.Started = model, now(p.Now)
	res.Prompts = make([]PromptTokens, len(agreementPrompts))
	err := forEach(ctx, len(agreementPrompts), p.Concurrency, p.Progress, func(ctx context.Context, i int) error {
		pr := agreementPrompts[i]
		ans, err := a.Greedy(ctx, client.GreedyRequest{Model: model, Prompt: pr.text, MaxTokens: p.tokens(), Logprobs: p.topK()})
		if err != nil {
			return fmt.Errorf("prompt %s: %w", pr.id, err)
		}
		if ans.Logprobs == nil || len(ans.Logprobs.Tokens) == 0 {
			return fmt.Errorf("the server sent no logprobs for prompt %s: the agreement probe needs an endpoint that honours /v1/completions' logprobs (vLLM does)", pr.id)
		}
		res.Prompts[i] = PromptTokens{ID: pr.id, Tokens: ans.Logprobs.Tokens, TopLogprobs: ans.Logprobs.TopLogprobs}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Agreement compares a candidate's greedy continuations with a baseline's,
// prompt by prompt (METHOD.md, "Quality (paired check)").
type Agreement struct {
	// Prompts is how many prompts were paired.
	Prompts int `json:"prompts"`
	// PrefixShare is the mean over prompts of the share of tokens
	// identical before the first divergence (1: the same text), with the
	// half-width of its Student-t 95% interval over prompts.
	PrefixShare     float64 `json:"prefix_share"`
	PrefixShareCI95 float64 `json:"prefix_share_ci95"`
	// AfterShare is the mean share of positions still identical after the
	// first divergence, over prompts that diverged (texts that re-join
	// after a one-token slip score high).
	AfterShare float64 `json:"after_share"`
	// Diverged is how many prompts diverged at all.
	Diverged int `json:"diverged"`
	// KL is the mean over prompts of the approximate KL divergence
	// (baseline ‖ candidate, nats per token) over the top-k at positions
	// where both share the prefix, with its 95% half-width over prompts.
	KL     float64 `json:"kl"`
	KLCI95 float64 `json:"kl_ci95"`
	// PerPrompt holds each prompt's figures.
	PerPrompt []PromptAgreement `json:"per_prompt"`
}

// PromptAgreement is one prompt's agreement.
type PromptAgreement struct {
	ID string `json:"id"`
	// FirstDivergence is the first position whose tokens differ (the
	// compared length when none does).
	FirstDivergence int     `json:"first_divergence"`
	Compared        int     `json:"compared"`
	PrefixShare     float64 `json:"prefix_share"`
	KL              float64 `json:"kl"`
}

// CompareAgreement pairs two agreement results prompt by prompt.
func CompareAgreement(base, cand *Result) (*Agreement, error) {
	if err := Comparable(base, cand); err != nil {
		return nil, err
	}
	if len(base.Prompts) == 0 {
		return nil, fmt.Errorf("the baseline holds no agreement prompts: give an agreement probe's result")
	}
	byID := map[string]PromptTokens{}
	for _, p := range cand.Prompts {
		byID[p.ID] = p
	}
	ag := &Agreement{}
	var prefix, kls, after []float64
	for _, bp := range base.Prompts {
		cp, ok := byID[bp.ID]
		if !ok {
			return nil, fmt.Errorf("prompt %s of the baseline is missing from this probe: run both with the same settings", bp.ID)
		}
		n := min(len(bp.Tokens), len(cp.Tokens))
		if n == 0 {
			continue
		}
		d := 0
		for d < n && bp.Tokens[d] == cp.Tokens[d] {
			d++
		}
		// The distributions at positions 0…d are conditioned on the same
		// text, so they compare; beyond d the two read different prefixes.
		var kl float64
		shared := min(d+1, n, len(bp.TopLogprobs), len(cp.TopLogprobs))
		for j := range shared {
			kl += TopKL(bp.TopLogprobs[j], cp.TopLogprobs[j])
		}
		if shared > 0 {
			kl /= float64(shared)
		}
		if d < n {
			ag.Diverged++
			if rest := n - d - 1; rest > 0 {
				same := 0
				for j := d + 1; j < n; j++ {
					if bp.Tokens[j] == cp.Tokens[j] {
						same++
					}
				}
				after = append(after, float64(same)/float64(rest))
			}
		}
		pa := PromptAgreement{ID: bp.ID, FirstDivergence: d, Compared: n, PrefixShare: float64(d) / float64(n), KL: kl}
		ag.PerPrompt = append(ag.PerPrompt, pa)
		prefix = append(prefix, pa.PrefixShare)
		kls = append(kls, kl)
	}
	ag.Prompts = len(ag.PerPrompt)
	ag.PrefixShare, ag.PrefixShareCI95 = bench.MeanCI95(prefix)
	ag.KL, ag.KLCI95 = bench.MeanCI95(kls)
	ag.AfterShare, _ = bench.MeanCI95(after)
	return ag, nil
}

// klFloor keeps a logarithm finite where a side reports no mass.
const klFloor = 1e-9

// TopKL is the approximate KL divergence KL(P ‖ Q) in nats between two
// top-k logprob maps at one position. Each side becomes a distribution
// over the baseline's reported tokens plus one "rest" bucket (1 − their
// sum); a baseline token the candidate did not report gets the
// candidate's smallest reported probability, the most it can hold (it
// was not in the candidate's top-k). Both are renormalised, so the value
// is a proper KL, ≥ 0, and 0 when the two maps are equal.
func TopKL(p, q map[string]float64) float64 {
	if len(p) == 0 {
		return 0
	}
	qMin := math.Inf(1)
	for _, v := range q {
		qMin = math.Min(qMin, math.Exp(v))
	}
	if math.IsInf(qMin, 1) {
		qMin = klFloor
	}
	ps := make([]float64, 0, len(p)+1)
	qs := make([]float64, 0, len(p)+1)
	var pSum, qSum float64
	for tok, lp := range p {
		pi := math.Exp(lp)
		qi := qMin
		if lq, ok := q[tok]; ok {
			qi = math.Exp(lq)
		}
		ps, qs = append(ps, pi), append(qs, qi)
		pSum += pi
		qSum += qi
	}
	ps, qs = append(ps, math.Max(1-pSum, klFloor)), append(qs, math.Max(1-qSum, klFloor))
	pSum, qSum = 0, 0
	for i := range ps {
		pSum += ps[i]
		qSum += qs[i]
	}
	var kl float64
	for i := range ps {
		pi, qi := ps[i]/pSum, qs[i]/qSum
		kl += pi * math.Log(pi/qi)
	}
	return math.Max(kl, 0)
}
