package quality

import "math"

// z975 is the standard normal's 0.975 quantile: every interval of this
// package is a two-sided 95% one.
const z975 = 1.959963984540054

// z80 is the standard normal's 0.80 quantile, the power the smallest
// detectable loss is stated at (MinDetectableLoss).
const z80 = 0.8416212335729143

// alpha is the significance level: "no significant change" when p ≥ alpha.
const alpha = 0.05

// Interval is a 95% interval [Lo, Hi] around an estimate.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Wilson returns the Wilson score 95% interval for k successes in n
// trials, as proportions in [0, 1]:
//
//	centre = (p̂ + z²/2n) / (1 + z²/n)
//	half   = z / (1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²)
//
// Unlike p̂ ± z·√(p̂(1−p̂)/n) it stays inside [0, 1] and does not collapse
// to a point at 0 or n successes, which a small, very accurate sample
// often shows. n = 0 gives [0, 1]: nothing is known.
func Wilson(k, n int) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z975 * z975
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z975 / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return Interval{Lo: math.Max(0, centre-half), Hi: math.Min(1, centre+half)}
}

// McNemarExact is the exact (binomial) two-sided McNemar test's p-value for
// b and c discordant pairs (items right only in the baseline, right only in
// the candidate). Under "no change" each discordant pair is equally likely
// to go either way, so min(b, c) is Binomial(b + c, ½):
//
//	p = min(1, 2 · Σ_{i=0}^{min(b,c)} C(b+c, i) / 2^(b+c)),   p = 1 when b + c = 0.
//
// The terms are summed in log space (lgamma, log-sum-exp), so thousands of
// pairs neither overflow C(n, i) nor underflow 2^−n.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n <= 0 {
		return 1
	}
	k := min(b, c)
	ln2n := float64(n) * math.Ln2
	lgN1, _ := math.Lgamma(float64(n) + 1)
	terms := make([]float64, k+1)
	top := math.Inf(-1)
	for i := 0; i <= k; i++ {
		a, _ := math.Lgamma(float64(i) + 1)
		d, _ := math.Lgamma(float64(n-i) + 1)
		terms[i] = lgN1 - a - d - ln2n
		top = math.Max(top, terms[i])
	}
	var sum float64
	for _, t := range terms {
		sum += math.Exp(t - top)
	}
	return math.Min(1, 2*math.Exp(top+math.Log(sum)))
}

// PairedDelta is the change in accuracy from baseline to candidate over n
// paired items, b right only in the baseline and c right only in the
// candidate: (c − b)/n, with the Agresti–Min adjusted Wald 95% interval
// (half a pair added to each of the four cells of the 2×2 table, n' = n + 2):
//
//	Δ' = (c − b)/n',  se = √((b' + c') − (c' − b')²/n') / n',  Δ ± z·se
//
// with b' = b + ½, c' = c + ½, centred on the unadjusted Δ. The paired
// variance uses only the discordant pairs, which is why a paired check is
// so much tighter than two independent accuracies; the adjustment keeps
// the interval from collapsing to a point when no item flipped.
func PairedDelta(b, c, n int) (delta float64, ci Interval) {
	if n <= 0 {
		return 0, Interval{-1, 1}
	}
	delta = float64(c-b) / float64(n)
	bb, cc, nn := float64(b)+0.5, float64(c)+0.5, float64(n)+2
	se := math.Sqrt(math.Max(0, (bb+cc)-(cc-bb)*(cc-bb)/nn)) / nn
	return delta, Interval{Lo: math.Max(-1, delta-z975*se), Hi: math.Min(1, delta+z975*se)}
}

// minOneWayFlips is the fewest flips, all one way, for which the exact
// McNemar test can reach p < 0.05: 2 · 2^−m < 0.05 first holds at m = 6
// (p = 0.031; five give 0.0625). No sample of any size detects a loss of
// fewer items.
const minOneWayFlips = 6

// MinDetectableLoss is the smallest loss of accuracy (a proportion) that a
// paired check of n items would have found significant with 80% power,
// given the b + c discordant pairs it saw. Under the normal approximation
// of McNemar's test, (c − b)/n has standard error ≈ √(b + c)/n, so a true
// loss Δ is detected with power 1 − β when Δ ≥ (z_{0.975} + z_{0.80}) ·
// √(b + c)/n. Two floors keep it honest: the discordance used is at least
// minOneWayFlips (a check with no flips still has its exact test's
// granularity), and the loss is at least minOneWayFlips/n, the smallest
// one-way flip count the exact test can call significant.
func MinDetectableLoss(b, c, n int) float64 {
	if n <= 0 {
		return 1
	}
	d := float64(max(b+c, minOneWayFlips))
	loss := (z975 + z80) * math.Sqrt(d) / float64(n)
	return math.Min(1, math.Max(loss, float64(minOneWayFlips)/float64(n)))
}

// quantile returns the q-quantile of sorted xs by linear interpolation
// between closest ranks (the "R-7" rule, numpy's default); 0 for none.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
