package predict

import (
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// PredictedLabel marks every predicted figure wherever it is shown, so a
// prediction is never read as a measurement.
const PredictedLabel = "predicted"

// Part is one slice of the memory bar: what takes memory and how much.
type Part struct {
	Name string
	GiB  float64
}

// Parts are the memory split's slices in the order the bar draws them:
// weights, activations, the rest, the KV cache (absent when nothing is
// left for it), and the memory vLLM leaves to others (1 −
// gpu_memory_utilization).
func (pr *Prediction) Parts() []Part {
	m := pr.Memory
	parts := []Part{{"weights", m.WeightsGiB}, {"activations", m.ActivationGiB}, {"other (CUDA graphs, buffers)", m.OtherGiB}}
	if m.KVGiB > 0 {
		parts = append(parts, Part{"KV cache", m.KVGiB})
	}
	return append(parts, Part{"left to other programs", m.TotalGiB - m.UsableGiB})
}

// Verdict is the fit in one sentence: how many tokens the KV cache holds
// and how many whole-length requests that is, or why it does not start
// and by how much.
func (pr *Prediction) Verdict() string {
	s, m := pr.Settings, pr.Memory
	if pr.Fits {
		return fmt.Sprintf("Fits: the KV cache holds %s, %.1f× a request of max-model-len %s.",
			rundoc.TokensText(m.KVTokens), float64(m.KVTokens)/float64(s.MaxModelLen), rundoc.GroupDigits(s.MaxModelLen))
	}
	switch {
	case m.KVGiB <= 0 && pr.ShortGiB > 0:
		return fmt.Sprintf("Does not fit: the weights, activations and the rest take %.2f GiB of the %.2f GiB vLLM may use, %.2f GiB short of room for one request of max-model-len %s.",
			m.WeightsGiB+m.ActivationGiB+m.OtherGiB, m.UsableGiB, pr.ShortGiB, rundoc.GroupDigits(s.MaxModelLen))
	case pr.ShortGiB > 0:
		return fmt.Sprintf("Does not fit: the KV cache holds %s, fewer than one request of max-model-len %s needs (%.2f GiB short).",
			rundoc.TokensText(m.KVTokens), rundoc.GroupDigits(s.MaxModelLen), pr.ShortGiB)
	}
	return "Does not start: " + pr.Problem
}

// Basis says what the speeds were predicted from, in one line:
// "simulator profile rtx3060-12gb, ±10%" or "learned from 3 runs, ±4%".
func (pr *Prediction) Basis() string {
	e := pr.Efficiency
	src := e.Source
	if e.Runs > 0 {
		src = fmt.Sprintf("learned from %d run", e.Runs)
		if e.Runs > 1 {
			src += "s"
		}
		src += " on this card"
	}
	return fmt.Sprintf("%s, ±%.0f%%", src, 100*e.Uncertainty)
}

// Doc is the cell as a run document's cell, for the figures' own
// formatting (rundoc.Figure); it is never stored, exported or charted:
// it carries PredictedLabel as its reason.
func (c Cell) Doc() rundoc.Cell {
	st := c.Status
	if st == StatusRuns {
		st = rundoc.StatusValid // for the figures' formatting only: Reason says predicted
	}
	return rundoc.Cell{Phase: c.Phase, Context: c.Context, Concurrency: c.Concurrency, Status: st,
		TotalTokS: c.TotalTokS, PerRequestTokS: c.PerRequestTokS, PromptTokS: c.PromptTokS, TTFTMs: c.TTFTMs,
		Reason: PredictedLabel}
}

// FixText is a fix as the CLI and the app list it: the flags, then why.
func FixText(f Fix) string {
	if len(f.Flags) == 0 {
		return f.Says
	}
	return strings.Join(f.Args(), " ") + ": " + f.Says
}
