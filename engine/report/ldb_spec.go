package report

import (
	"github.com/rigbench/rigbench/engine/rundoc"
)

// ldbSpec is the drafting part of one llm_decode_bench results entry
// (issue 39), the tool's names for RigBench's CellSpec figures (METHOD.md:
// Speculative decoding). The tool writes 0 and [] for a launch that does
// not draft, which read as absent.
type ldbSpec struct {
	SpecAcceptRate   *float64  `json:"server_spec_accept_rate"`
	SpecAcceptLength *float64  `json:"server_spec_accept_length"`
	SpecDrafts       *float64  `json:"server_spec_drafts"`
	SpecDraftTokens  *float64  `json:"server_spec_draft_tokens"`
	SpecAccepted     *float64  `json:"server_spec_accepted_tokens"`
	SpecPosAccept    []float64 `json:"server_spec_pos_accept"`
	EngineSteps      *float64  `json:"server_engine_steps"`
	StepsPerS        *float64  `json:"server_steps_per_s"`
	AcceptLenEff     *float64  `json:"server_accept_len_effective"`
	AcceptNormTPS    *float64  `json:"accept_norm_tps"`
	AcceptNormRefLen *float64  `json:"accept_norm_ref_len"`
}

// spec reads an entry's drafting figures into c, refusing shares above 1
// and lengths beyond rundoc.MaxAcceptLength with their field's name. It returns
// the entry's reference acceptance length (0: none).
func (k *ldbChecker) spec(at string, s ldbSpec, c *rundoc.Cell) float64 {
	c.SpecAcceptRate = k.figure(at+"server_spec_accept_rate", s.SpecAcceptRate, 1, "(a share)")
	c.SpecAcceptLength = k.figure(at+"server_spec_accept_length", s.SpecAcceptLength, rundoc.MaxAcceptLength, "tokens per step")
	c.SpecAcceptLengthEff = k.figure(at+"server_accept_len_effective", s.AcceptLenEff, rundoc.MaxAcceptLength, "tokens per step")
	c.SpecDrafts = k.count(at+"server_spec_drafts", s.SpecDrafts)
	c.SpecDraftTokens = k.count(at+"server_spec_draft_tokens", s.SpecDraftTokens)
	c.SpecAcceptedTokens = k.count(at+"server_spec_accepted_tokens", s.SpecAccepted)
	c.EngineSteps = k.figure(at+"server_engine_steps", s.EngineSteps, ldbMaxCount, "steps")
	c.StepsPerS = k.rate(at+"server_steps_per_s", s.StepsPerS)
	c.ProjectedTokS = k.rate(at+"accept_norm_tps", s.AcceptNormTPS)
	if len(s.SpecPosAccept) > rundoc.MaxSpecPositions {
		k.fail("its %sserver_spec_pos_accept lists %d positions, more than the %d any drafter proposes", at, len(s.SpecPosAccept), rundoc.MaxSpecPositions)
	}
	for i := range min(len(s.SpecPosAccept), rundoc.MaxSpecPositions) {
		c.SpecPosAccept = append(c.SpecPosAccept, k.figure(at+"server_spec_pos_accept", &s.SpecPosAccept[i], 1, "(a share)"))
	}
	if c.CellSpec.IsZero() {
		return 0 // not a drafting cell: the tool writes zeros
	}
	ref := k.figure(at+"accept_norm_ref_len", s.AcceptNormRefLen, rundoc.MaxAcceptLength, "tokens per step")
	if ref > 0 && ref < 1 {
		k.fail("its %saccept_norm_ref_len is %g, below the 1 token every step yields", at, ref)
	}
	return ref
}

// ldbSpecFields writes a drafting cell's figures under the tool's names,
// and the tool's zeros for a cell that did not draft, as it writes them.
func ldbSpecFields(e map[string]any, c *rundoc.Cell, refLen float64) {
	pos := c.SpecPosAccept
	if pos == nil {
		pos = []float64{}
	}
	e["server_spec_accept_rate"], e["server_spec_accept_length"] = c.SpecAcceptRate, c.SpecAcceptLength
	e["server_spec_drafts"], e["server_spec_draft_tokens"], e["server_spec_accepted_tokens"] = c.SpecDrafts, c.SpecDraftTokens, c.SpecAcceptedTokens
	e["server_spec_pos_accept"], e["server_engine_steps"], e["server_steps_per_s"] = pos, c.EngineSteps, c.StepsPerS
	e["server_accept_len_effective"], e["accept_norm_tps"] = c.SpecAcceptLengthEff, c.ProjectedTokS
	if c.ProjectedTokS == 0 {
		refLen = 0
	}
	e["accept_norm_ref_len"] = refLen
}
