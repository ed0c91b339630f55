package predict

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Input is what one prediction is asked about.
type Input struct {
	// Card is the card (detected, or from the known cards), Cards how many
	// of it the rig has (0 reads as 1).
	Card  Card
	Cards int
	// NVLink says the cards reach each other over NVLink (else PCIe): the
	// cost of tensor parallelism's all-reduces.
	NVLink bool
	// Model is the model's facts.
	Model Model
	// Args are the launch's vLLM flags (`--max-model-len 32768 …`), read
	// as vLLM reads them (sim.ParseArgs, vLLM's own error messages).
	Args []string
	// Efficiency is what the time model starts from: Prior, or Learn's.
	// Zero means Prior(Card, Model.ID).
	Efficiency Efficiency
	// Plan is the matrix to predict; its zero value predicts nothing but
	// the memory.
	Plan rundoc.Plan
}

// Prediction is a launch's predicted memory split, fit and matrix.
type Prediction struct {
	Card  Card  `json:"card"`
	Cards int   `json:"cards"`
	Model Model `json:"model"`
	// Settings are the launch's values that size it (defaults filled).
	Settings Settings `json:"settings"`
	// Memory is vLLM's budget on the cards the server uses.
	Memory Split `json:"memory"`
	// Fits is true when vLLM would start: the KV cache holds at least one
	// request of max_model_len and every flag is valid.
	Fits bool `json:"fits"`
	// Problem is why it would not start, in vLLM's words or the
	// simulator's (the same check), "" when it fits.
	Problem string `json:"problem,omitempty"`
	// ShortGiB is by how much memory it does not fit (0 when memory is not
	// the problem).
	ShortGiB float64 `json:"short_gib,omitempty"`
	// Fixes are the smallest flag changes that make it fit, best first.
	Fixes []Fix `json:"fixes,omitempty"`
	// Efficiency is what the speeds were predicted with.
	Efficiency Efficiency `json:"efficiency"`
	// Cells are the plan's predicted cells.
	Cells []Cell `json:"cells,omitempty"`
	// profile is the simulator profile of this card, model and
	// efficiency, for one card (SimProfile).
	profile sim.Profile
}

// Settings are a launch's sizing values, with vLLM's defaults filled.
type Settings struct {
	Utilization         float64 `json:"gpu_memory_utilization"`
	MaxModelLen         int     `json:"max_model_len"`
	KVCacheDtype        string  `json:"kv_cache_dtype"`
	MaxNumSeqs          int     `json:"max_num_seqs"`
	MaxNumBatchedTokens int     `json:"max_num_batched_tokens"`
	TensorParallel      int     `json:"tensor_parallel_size"`
	PipelineParallel    int     `json:"pipeline_parallel_size"`
}

// Split is vLLM's memory budget as a prediction shows it.
type Split struct {
	// TotalGiB is the memory of the cards the server uses, UsableGiB the
	// gpu_memory_utilization share of it.
	TotalGiB  float64 `json:"total_gib"`
	UsableGiB float64 `json:"usable_gib"`
	// WeightsGiB, ActivationGiB and OtherGiB are taken before the KV
	// cache; KVGiB is the rest (negative when it does not fit).
	WeightsGiB    float64 `json:"weights_gib"`
	ActivationGiB float64 `json:"activation_gib"`
	OtherGiB      float64 `json:"other_gib"`
	KVGiB         float64 `json:"kv_gib"`
	// KVTokens is the KV cache in tokens (whole blocks) and
	// KVBytesPerToken one token's KV at the cache dtype.
	KVTokens        int     `json:"kv_tokens"`
	KVBytesPerToken float64 `json:"kv_bytes_per_token"`
}

// StatusRuns is a predicted cell that would run and be Valid: a
// prediction never calls a cell Valid, which only a measurement's own
// evidence can make it.
const StatusRuns rundoc.Status = "Would run"

// Cell is one predicted cell of a plan.
type Cell struct {
	Phase       rundoc.Phase `json:"phase"`
	Context     int          `json:"context"`
	Concurrency int          `json:"concurrency"`
	// Status is the plan check's (Over capacity, Exceeds model length),
	// Requests queued beyond max-num-seqs, else StatusRuns.
	Status rundoc.Status `json:"status"`
	// TotalTokS and PerRequestTokS are a decode cell's steady rates;
	// PromptTokS and TTFTMs a prefill cell's.
	TotalTokS      float64 `json:"total_tok_s,omitempty"`
	PerRequestTokS float64 `json:"per_request_tok_s,omitempty"`
	PromptTokS     float64 `json:"prompt_tok_s,omitempty"`
	TTFTMs         float64 `json:"ttft_ms,omitempty"`
	// Uncertainty is the figures' relative ± (0.1 = ±10%).
	Uncertainty float64 `json:"uncertainty,omitempty"`
}

// Predict predicts a launch on a card: its memory split, whether it fits
// and how to make it fit, and the plan's cells.
func Predict(in Input) (*Prediction, error) {
	pr, err := predictOnce(in)
	if err == nil && !pr.Fits {
		pr.Fixes = fixes(in, pr)
	}
	return pr, err
}

// predictOnce is Predict without the fixes: what a fix is checked with.
func predictOnce(in Input) (*Prediction, error) {
	if in.Card.MemoryGiB <= 0 || in.Card.BandwidthGBs <= 0 {
		return nil, fmt.Errorf("the card %q has no memory size or bandwidth: name a known card", in.Card.Name)
	}
	if in.Model.WeightsGiB <= 0 || in.Model.KVBytesPerToken <= 0 || in.Model.MaxLen <= 0 {
		return nil, fmt.Errorf("the model %q lacks its weights' size, KV bytes per token or maximum length", in.Model.ID)
	}
	cfg, err := sim.ParseArgs(in.Args)
	if err != nil {
		return nil, fmt.Errorf("the launch flags: %w", err)
	}
	eff := in.Efficiency
	if eff.Source == "" {
		eff = Prior(in.Card, in.Model.ID)
	}
	cards := max(in.Cards, 1)
	p := Profile(in.Card, in.Model, eff)
	p.GPUs = cards
	if in.NVLink {
		p.Link = sim.LinkNVLink
	}
	pr := &Prediction{Card: in.Card, Cards: cards, Model: in.Model, Efficiency: eff, profile: p}
	cfg.Profile, cfg.Model = p, in.Model.ID
	pr.Settings = settingsOf(cfg, p)
	pr.Memory = split(pr.Settings, p)
	maxLen, kvTokens, ferr := sim.Facts(cfg)
	pr.Fits = ferr == nil
	if ferr != nil {
		pr.Problem = ferr.Error()
		var ae *sim.ArgError
		if errors.As(ferr, &ae) {
			return nil, fmt.Errorf("the launch flags: %w", ferr)
		}
		pr.ShortGiB = shortGiB(pr)
		return pr, nil
	}
	pr.Settings.MaxModelLen = maxLen
	pr.Memory.KVTokens = kvTokens
	pr.Cells = cells(in.Plan, pr, cfg)
	return pr, nil
}

// Profile is the simulator profile of a card, a model and efficiencies:
// the prediction's time and memory model, and what the demo serves for a
// card and model no built-in profile has (`sim --profile predicted`).
func Profile(card Card, m Model, e Efficiency) sim.Profile {
	p := sim.DefaultProfile()
	bw, fl := card.BandwidthGBs*1e9, card.TFLOPS*1e12
	if fl <= 0 {
		fl = 100e12 // a card without a figure: its efficiencies absorb it
	}
	p.Name = "predicted"
	p.Description = fmt.Sprintf("%s serving %s, predicted", card.Name, m.ID)
	p.GPUName, p.Model, p.ModelMaxLen = card.Name, m.ID, m.MaxLen
	p.GPUMemoryGiB, p.PeakBandwidthGBs = card.MemoryGiB, card.BandwidthGBs
	p.WeightsGiB = m.WeightsGiB
	p.KVBytesPerToken = int(math.Round(m.KVBytesPerToken))
	// vLLM's defaults by card: the OpenAI server raises them on cards of
	// 70 GiB and more other than the A100 (its usage-context defaults), as
	// the profiles have.
	if card.MemoryGiB >= 70 && !strings.Contains(strings.ToLower(card.Name), "a100") {
		p.DefaultMaxNumSeqs, p.DefaultMaxNumBatchedTokens = 1024, 8192
	} else {
		p.DefaultMaxNumSeqs, p.DefaultMaxNumBatchedTokens = 256, 2048
	}
	p.ActivationGiB, p.OtherGiB = activationGiB(m, p.DefaultMaxNumBatchedTokens), m.OtherGiB
	if p.OtherGiB == 0 {
		p.OtherGiB = otherGiB
	}
	p.StepBaseS = ratio(m.WeightsGiB*vllm.GiB, bw*e.Weights)
	p.DecodePerSeqS = ratio(2*m.Params, fl*e.Seq)
	p.DecodePerContextTokenS = ratio(m.KVBytesPerToken, bw*e.KV)
	p.DecodeContextQuadS = p.DecodePerContextTokenS * e.KVQuad
	p.DecodeBatchExponent = e.BatchExponent
	p.PrefillPerTokenS = ratio(2*m.Params, fl*e.Prefill)
	p.PrefillAttentionS = p.PrefillPerTokenS * e.PrefillQuad
	p.APIBaseS, p.APIPerTokenS, p.APILogS, p.APILogTokens = e.APIBaseS, e.APIPerTokenS, e.APILogS, e.APILogTokens
	return p
}

// SimProfile is the prediction's profile, for the simulator to serve.
func (pr *Prediction) SimProfile() sim.Profile { return pr.profile }

// otherGiB is what vLLM keeps besides weights, activations and KV on a
// model the profiles do not know (CUDA graphs, non-torch memory): the
// profiles have 0.8 and 1.1 GiB.
const otherGiB = 0.9

// activationGiB is the profiled activation peak of a forward pass of
// batched tokens. A forward pass holds its tokens' logits in float32 (4 ×
// vocab bytes each) and the layers' intermediates (about 32 × hidden bytes
// each), plus 0.4 GiB of workspace; that reads the profiles' 2.10 and
// 4.2 GiB within about 25%. A profile's model keeps its exact figure at
// the profile's batch and scales by the estimate's ratio from there, so
// the same model on another card (another default batch) is sized too.
func activationGiB(m Model, batched int) float64 {
	perToken := 4*float64(m.Vocab) + 32*float64(m.Hidden)
	if perToken == 0 {
		perToken = 4*150000 + 32*4096 // a typical model's shape
	}
	est := func(n int) float64 { return 0.4 + float64(n)*perToken/vllm.GiB }
	if m.ActivationGiB > 0 && m.Batched > 0 {
		return m.ActivationGiB * est(batched) / est(m.Batched)
	}
	return est(batched)
}

// settingsOf is cfg's sizing with the profile's defaults filled, as the
// simulator fills them (sim.WithDefaults).
func settingsOf(cfg sim.Config, p sim.Profile) Settings {
	cfg.Profile = p
	cfg = sim.WithDefaults(cfg)
	return Settings{
		Utilization: cfg.GPUMemoryUtilization, MaxModelLen: cfg.MaxModelLen, KVCacheDtype: cfg.KVCacheDtype,
		MaxNumSeqs: cfg.MaxNumSeqs, MaxNumBatchedTokens: cfg.MaxNumBatchedTokens,
		TensorParallel: max(cfg.TensorParallelSize, 1), PipelineParallel: max(cfg.PipelineParallelSize, 1),
	}
}

// memoryOf is vLLM's budget for settings s on profile p's cards (vllm.Memory,
// the simulator's rule).
func memoryOf(s Settings, p sim.Profile) vllm.Memory {
	r, ok := vllm.KVDtypeRatio(s.KVCacheDtype)
	if !ok {
		r = 1
	}
	one := vllm.Memory{TotalGiB: p.GPUMemoryGiB, Utilization: s.Utilization, WeightsGiB: p.WeightsGiB,
		ActivationGiB: p.ActivationGiB, OtherGiB: p.OtherGiB,
		KVBytesPerToken: float64(p.KVBytesPerToken) * r, BlockSize: p.BlockSize}
	return vllm.Spread(one, s.TensorParallel*s.PipelineParallel)
}

func split(s Settings, p sim.Profile) Split {
	m := memoryOf(s, p)
	return Split{TotalGiB: m.TotalGiB, UsableGiB: m.Utilization * m.TotalGiB, WeightsGiB: m.WeightsGiB,
		ActivationGiB: m.ActivationGiB, OtherGiB: m.OtherGiB, KVGiB: m.KVGiB(), KVTokens: m.KVTokens(),
		KVBytesPerToken: m.KVBytesPerToken}
}

// shortGiB is how much more memory the KV cache needs to hold one request
// of max_model_len (0 when memory is not why it does not start).
func shortGiB(pr *Prediction) float64 {
	need := float64(pr.Settings.MaxModelLen) * pr.Memory.KVBytesPerToken / vllm.GiB
	if pr.Memory.KVGiB <= 0 {
		return need - pr.Memory.KVGiB
	}
	if pr.Memory.KVTokens < pr.Settings.MaxModelLen {
		return need - pr.Memory.KVGiB
	}
	return 0
}

// cells predicts each cell of plan: its status by METHOD.md's plan check
// (bench.DecodeStatus, bench.PrefillStatus, queued beyond max-num-seqs)
// and, for a cell that runs, its figures from the time model.
func cells(plan rundoc.Plan, pr *Prediction, cfg sim.Config) []Cell {
	p, err := sim.Parallel(pr.profile, pr.Settings.TensorParallel, pr.Settings.PipelineParallel)
	if err != nil {
		return nil
	}
	lim := bench.Limits{MaxModelLen: pr.Settings.MaxModelLen, KVCapacity: pr.Memory.KVTokens, Slots: pr.Settings.MaxNumSeqs}
	u := pr.Efficiency.Uncertainty
	var out []Cell
	resolved := plan.Resolve(pr.Settings.MaxModelLen)
	for _, c := range resolved.PrefillContexts {
		cell := Cell{Phase: rundoc.PhasePrefill, Context: c, Concurrency: 1, Status: bench.PrefillStatus(c, lim)}
		if cell.Status == "" {
			cell.Status = StatusRuns
			t := ttft(p, c, pr.Settings.MaxNumBatchedTokens)
			cell.TTFTMs, cell.PromptTokS, cell.Uncertainty = 1000*t, float64(c)/t, u
		}
		out = append(out, cell)
	}
	maxOut := plan.MaxOutput
	if maxOut <= 0 {
		maxOut = rundoc.DefaultMaxOutput
	}
	// The window the cells would be measured over: D, or an adaptive
	// window's expected length (bench.ExpectedWindow, as the estimate).
	window := bench.ExpectedWindow(plan, nil).Seconds()
	if window <= 0 {
		window = rundoc.DefaultDuration.Seconds()
	}
	for _, c := range resolved.Contexts {
		for _, n := range plan.Concurrency {
			cell := Cell{Phase: rundoc.PhaseDecode, Context: c, Concurrency: n, Status: bench.DecodeStatus(c, n, maxOut, lim)}
			if cell.Status == "" {
				cell.Status = StatusRuns
				if lim.Queued(n) {
					cell.Status = rundoc.StatusQueued
				}
				b := lim.Running(n)
				per := decodeRate(p, cfg.Speculative, b, c, maxOut, window)
				cell.TotalTokS, cell.PerRequestTokS, cell.Uncertainty = per*float64(b), per, u
			}
			out = append(out, cell)
		}
	}
	return out
}

// rampS is how long a decode cell's ramp lasts before its window opens,
// as the plan's estimate assumes it (bench.AssumedRamp).
var rampS = bench.AssumedRamp.Seconds()

// decodeRate is one stream's steady decode rate (tok/s) with b streams at
// context c: 1 ÷ step(b, c̄), where c̄ is the context the streams read at
// the middle of the window (grown). A speculative launch (sp) yields L
// tokens per step, L ÷ its longer step (sim.Profile.SpecDecodeStepS),
// with L for a prompt that gives its drafter nothing to copy: the
// prediction does not know the prompt's text.
func decodeRate(p sim.Profile, sp *sim.Speculation, b, c, maxOut int, window float64) float64 {
	base := float64(rundoc.PromptTokens(c))
	l := p.SpecTokensPerStep(sp)
	rate := l / p.SpecDecodeStepS(sp, b, base)
	for range 3 { // three fixed-point passes settle it
		rate = l / p.SpecDecodeStepS(sp, b, base+grown(rate, maxOut, window))
	}
	return rate
}

// grown is how many tokens a stream of rate tok/s has added to its
// context by the middle of a window of window seconds: all it generated
// since it was sent, rate × (ramp + window/2), while that is under the max
// output M; once streams cycle (a stream ends at M and the next starts
// afresh) a stream holds M/2 on average.
func grown(rate float64, maxOut int, window float64) float64 {
	if g := rate * (rampS + window/2); g < float64(maxOut) {
		return g
	}
	return float64(maxOut) / 2
}

// ttft is a lone prompt of c tokens' time to first token: the front end's
// intake, the compute of the prompt, and one step's fixed cost for each
// chunk of max_num_batched_tokens it is computed in.
func ttft(p sim.Profile, c, batched int) float64 {
	chunks := math.Ceil(float64(c) / float64(max(batched, 1)))
	return p.APICostS(c) + p.PrefillS(float64(c)) + chunks*p.StepBaseS
}

// zeroPlan predicts no cells: a fit check only.
var zeroPlan = rundoc.Plan{}
