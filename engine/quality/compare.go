package quality

import (
	"fmt"
	"slices"
	"sort"
)

// Comparison is a candidate task probe paired with a baseline on the same
// items (METHOD.md, "Quality (paired check)"). Points are percentage
// points of accuracy, candidate minus baseline: negative is a loss.
type Comparison struct {
	// N is the number of paired items.
	N int `json:"n"`
	// BaselineOnly and CandidateOnly are items of only one side, left out
	// of the pairing: always 0 for RigBench's own results, which must hold
	// the same items; imported reports pair on the items both scored, as
	// their tool does.
	BaselineOnly  int `json:"baseline_only_items,omitempty"`
	CandidateOnly int `json:"candidate_only_items,omitempty"`
	// Baseline and Candidate are each side's accuracy (Wilson).
	Baseline  Accuracy `json:"baseline"`
	Candidate Accuracy `json:"candidate"`
	// DeltaPoints is the candidate's accuracy minus the baseline's, in
	// points, and DeltaCI95 its paired interval (PairedDelta), in points.
	DeltaPoints float64  `json:"delta_points"`
	DeltaCI95   Interval `json:"delta_ci95_points"`
	// RightOnlyBaseline (b) and RightOnlyCandidate (c) are the flips: items
	// the candidate lost and items it gained.
	RightOnlyBaseline  int `json:"right_only_baseline"`
	RightOnlyCandidate int `json:"right_only_candidate"`
	// LostIDs and GainedIDs name them.
	LostIDs   []string `json:"lost_ids,omitempty"`
	GainedIDs []string `json:"gained_ids,omitempty"`
	// McNemarP is the exact McNemar p-value on b and c.
	McNemarP float64 `json:"mcnemar_p"`
	// Significant is McNemarP < 0.05.
	Significant bool `json:"significant"`
	// MinDetectableLossPoints is the smallest loss this pairing would have
	// found with 80% power (MinDetectableLoss), in points.
	MinDetectableLossPoints float64 `json:"min_detectable_loss_points"`
	// Categories are the per-category deltas, by name; empty when the data
	// set has one category or none.
	Categories []CategoryDelta `json:"categories,omitempty"`
	// Tokens is the completion-token inflation.
	Tokens TokenInflation `json:"tokens"`
}

// CategoryDelta is the paired comparison restricted to one category.
type CategoryDelta struct {
	Name        string  `json:"name"`
	N           int     `json:"n"`
	DeltaPoints float64 `json:"delta_points"`
	Lost        int     `json:"lost"`
	Gained      int     `json:"gained"`
	McNemarP    float64 `json:"mcnemar_p"`
}

// TokenInflation compares the completion tokens per item: the candidate's
// mean, median and 90th percentile against the baseline's, and the ratio of
// the means (above 1: the candidate talks longer for the same items, which
// costs time the speed figures do not show).
type TokenInflation struct {
	BaselineMean  float64 `json:"baseline_mean"`
	CandidateMean float64 `json:"candidate_mean"`
	BaselineP50   float64 `json:"baseline_p50"`
	CandidateP50  float64 `json:"candidate_p50"`
	BaselineP90   float64 `json:"baseline_p90"`
	CandidateP90  float64 `json:"candidate_p90"`
	Ratio         float64 `json:"ratio"`
}

// Comparable says why two results cannot be paired, in one sentence, or
// returns nil: they must be the same probe with the same profile, on the
// same data (sha256) and the same items.
func Comparable(base, cand *Result) error {
	switch {
	case base.Source != cand.Source:
		return fmt.Errorf("one result is %s and the other %s: their prompts and item ids differ, so they do not pair; compare two results of the same tool", sourceName(base), sourceName(cand))
	case base.Probe != cand.Probe:
		return fmt.Errorf("the baseline measured %s and this probe %s: compare results of the same probe", base.Probe, cand.Probe)
	case base.Profile != cand.Profile:
		return fmt.Errorf("the baseline's probe settings (%s) differ from this probe's (%s): run both with the same settings", base.Profile, cand.Profile)
	case (base.Dataset == nil) != (cand.Dataset == nil):
		return fmt.Errorf("only one of the two results has a data set: compare results of the same probe")
	case base.Dataset != nil && base.Dataset.SHA256 != cand.Dataset.SHA256:
		return fmt.Errorf("the baseline's data set (sha256 %.12s…) is not this probe's (sha256 %.12s…): run both on the same file", base.Dataset.SHA256, cand.Dataset.SHA256)
	}
	return nil
}

// sourceName is who measured a result, for the refusal.
func sourceName(r *Result) string {
	if r.Source == "" {
		return "RigBench's"
	}
	return r.Source + "'s"
}

// Compare pairs a candidate task probe with its baseline item by item. It
// refuses results that are not Comparable; RigBench's own results must hold
// the same item ids, while imported reports pair on the ids both scored
// (the seed tool's build_paired_comparison), refused only when none are
// shared.
func Compare(base, cand *Result) (*Comparison, error) {
	if err := Comparable(base, cand); err != nil {
		return nil, err
	}
	if len(base.Items) == 0 {
		return nil, fmt.Errorf("the baseline holds no task items: give a task probe's result (gsm8k:N, mmlu-pro:N, gpqa:N)")
	}
	byID := make(map[string]Item, len(cand.Items))
	for _, it := range cand.Items {
		byID[it.ID] = it
	}
	imported := base.Source != ""
	var pb, pc []Item // the paired items, in the baseline's order
	for _, bi := range base.Items {
		ci, ok := byID[bi.ID]
		switch {
		case ok:
			pb, pc = append(pb, bi), append(pc, ci)
		case !imported:
			return nil, fmt.Errorf("item %s of the baseline is missing from this probe: run both on the same items", bi.ID)
		}
	}
	if !imported && len(byID) != len(base.Items) {
		return nil, fmt.Errorf("the baseline has %d items and this probe %d: run both on the same items", len(base.Items), len(cand.Items))
	}
	if len(pb) == 0 {
		return nil, fmt.Errorf("the two reports share no scored item: compare two runs of the same data-set profile")
	}
	cmp := &Comparison{N: len(pb), Baseline: accuracyOf(pb), Candidate: accuracyOf(pc),
		BaselineOnly: len(base.Items) - len(pb), CandidateOnly: len(cand.Items) - len(pc)}
	type cat struct{ n, b, c int }
	cats := map[string]*cat{}
	var bt, ct []float64
	for i, bi := range pb {
		ci := pc[i]
		k := cats[bi.Category]
		if k == nil {
			k = &cat{}
			cats[bi.Category] = k
		}
		k.n++
		switch {
		case bi.Correct && !ci.Correct:
			cmp.RightOnlyBaseline++
			cmp.LostIDs = append(cmp.LostIDs, bi.ID)
			k.b++
		case !bi.Correct && ci.Correct:
			cmp.RightOnlyCandidate++
			cmp.GainedIDs = append(cmp.GainedIDs, bi.ID)
			k.c++
		}
		bt = append(bt, float64(bi.CompletionTokens))
		ct = append(ct, float64(ci.CompletionTokens))
	}
	b, c := cmp.RightOnlyBaseline, cmp.RightOnlyCandidate
	d, ci := PairedDelta(b, c, cmp.N)
	cmp.DeltaPoints, cmp.DeltaCI95 = 100*d, Interval{100 * ci.Lo, 100 * ci.Hi}
	cmp.McNemarP = McNemarExact(b, c)
	cmp.Significant = cmp.McNemarP < alpha
	cmp.MinDetectableLossPoints = 100 * MinDetectableLoss(b, c, cmp.N)
	if len(cats) > 1 {
		names := make([]string, 0, len(cats))
		for n := range cats {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			k := cats[n]
			cmp.Categories = append(cmp.Categories, CategoryDelta{Name: n, N: k.n, DeltaPoints: 100 * float64(k.c-k.b) / float64(k.n),
				Lost: k.b, Gained: k.c, McNemarP: McNemarExact(k.b, k.c)})
		}
	}
	cmp.Tokens = inflation(bt, ct)
	return cmp, nil
}

// inflation summarises the completion tokens of the paired items.
func inflation(base, cand []float64) TokenInflation {
	bm, cm := mean(base), mean(cand)
	slices.Sort(base)
	slices.Sort(cand)
	t := TokenInflation{BaselineMean: bm, CandidateMean: cm,
		BaselineP50: quantile(base, 0.5), CandidateP50: quantile(cand, 0.5),
		BaselineP90: quantile(base, 0.9), CandidateP90: quantile(cand, 0.9)}
	if bm > 0 {
		t.Ratio = cm / bm
	}
	return t
}

// Verdict is the comparison in one sentence: the change with its p-value,
// or "no significant change" with the smallest loss the sample could have
// detected.
func (c *Comparison) Verdict() string {
	if !c.Significant {
		return fmt.Sprintf("no significant change (%+.1f points, %s); with %d items a loss below %.1f points would likely go unseen",
			c.DeltaPoints, PText(c.McNemarP), c.N, c.MinDetectableLossPoints)
	}
	word := "lost"
	if c.DeltaPoints > 0 {
		word = "gained"
	}
	return fmt.Sprintf("accuracy %s %.1f points (%s): %d items right only in the baseline, %d only in the candidate",
		word, abs(c.DeltaPoints), PText(c.McNemarP), c.RightOnlyBaseline, c.RightOnlyCandidate)
}

// PText writes a p-value as people read one, with its "p": "p = 0.62",
// "p = 0.0034" (two significant digits), "p < 0.0001".
func PText(p float64) string {
	if p < 1e-4 {
		return "p < 0.0001"
	}
	if p >= 0.1 {
		return fmt.Sprintf("p = %.2f", p)
	}
	return fmt.Sprintf("p = %.2g", p)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
