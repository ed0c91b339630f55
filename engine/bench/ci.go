package bench

import (
	"math"
	"math/rand/v2"
	"time"
)

// Confidence intervals of METHOD.md (Uncertainty). Every half-width is of a
// 95% interval; 0 means not enough data to say, and the run document then
// leaves the _ci95 field out.

// binWidth is the resolution, in the card's time, at which a window
// counts tokens for its uncertainty: tokens whose chunk arrived in
// [k·binWidth, (k+1)·binWidth) add to bin k. It is far below any card's
// step time, so batch boundaries can sit on the arrival of a step's tokens
// (rateCI).
const binWidth = time.Millisecond

// ciBatches is how many batches the batch-means method forms. Ten is the
// usual choice: few enough that each batch spans several samples (so
// neighbouring batches are nearly independent), enough that Student's t
// with 9 degrees of freedom (2.26) is not much wider than the normal 1.96.
const ciBatches = 10

// tCrit975 is Student's t 0.975 quantile by degrees of freedom 1…30
// (index 0 unused); above 30 the normal 1.96 is within 2%.
var tCrit975 = [...]float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// tQuantile returns Student's t 0.975 quantile for df degrees of freedom.
func tQuantile(df int) float64 {
	if df < 1 {
		return math.Inf(1)
	}
	if df < len(tCrit975) {
		return tCrit975[df]
	}
	return 1.96
}

// meanCI returns the mean of xs and the half-width of its 95% interval
// under independence: t(n−1) · s / √n, s the sample standard deviation.
// Fewer than two values give half-width 0 (unknown).
func meanCI(xs []float64) (mean, half float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	s := math.Sqrt(ss / float64(n-1))
	return mean, tQuantile(n-1) * s / math.Sqrt(float64(n))
}

// MeanCI95 is meanCI for other packages: the mean of xs and the half-width
// of its Student-t 95% interval (engine/quality's agreement over prompts).
func MeanCI95(xs []float64) (mean, half float64) { return meanCI(xs) }

// rateCI is the half-width of the 95% interval of the mean token rate of
// a stretch of a window, in tokens per bin, from its bins (METHOD.md:
// Uncertainty). It uses batch means: the stretch is cut into ciBatches
// spans of whole scheduler steps (spanRates), each span's rate is one
// observation, and spans longer than the series' correlation (stream
// restarts) are nearly independent; spansCI turns them into a half-width.
// It returns 0 with fewer than 5 spans, and known is then false: a
// computed half-width can be 0 too (spans of exactly equal rates).
func rateCI(bins []float64) (half float64, known bool) {
	rates := spanRates(bins, min(ciBatches, len(bins)))
	return spansCI(rates), len(rates) >= 5
}

// spansCI is the half-width of the 95% interval of the mean of the span
// rates r_0 … r_{b−1} (in time order), with a linear trend taken out.
//
// The rate of a window drifts: each stream's context grows as it decodes,
// and the card slows with it. That drift is the same in every repetition of
// the window, so it is part of what the window measures, not noise; counted
// as noise it made the ± of a fixed window grow with its length (0×16 on
// the simulated reference card: ± 6.8 at 15 s, ± 13.6 at 30 s). So the spans are
// fitted by least squares with r_j = m + β·x_j, x_j = j − (b − 1)/2: since
// Σx_j = 0, m is the plain mean r̄ (the figure: a linear trend's mean over
// the window is its value at the middle) and β = Σ x_j (r_j − r̄) / Σ x_j².
// The residuals e_j = r_j − r̄ − β·x_j are the noise, with b − 2 degrees of
// freedom left. A chunk the client reads late (a busy machine, a fast
// simulator) moves its tokens from one span into the next without changing
// the total: that adds as much to the spans' variance γ0 as it takes from
// twice their lag-1 covariance γ1, so the variance of r̄ is taken as
// (γ0 + 2γ1) / b, the first terms of the residuals' long-run variance,
// never below γ0 / (4b), with γ0 = Σe_j² / (b − 2) and γ1 = Σe_j·e_{j−1} /
// (b − 2), corrected for the fit (below). Estimating γ1 as well leaves the variance estimate less sure
// than γ0 alone, so t has (b − 2) / 2 degrees of freedom (4 for b = 10;
// by simulation 93% coverage on independent step times, see
// TestRateCICovers, and on drifting ones, TestSpansCIDetrends). A pure
// trend gives ± 0.
func spansCI(rates []float64) float64 {
	b := len(rates)
	if b < 5 {
		return 0 // b − 2 − 2c (below) is 0 at b = 4
	}
	var m float64
	for _, x := range rates {
		m += x
	}
	m /= float64(b)
	mid := float64(b-1) / 2
	var sxy, sxx float64
	for j, r := range rates {
		x := float64(j) - mid
		sxy += x * (r - m)
		sxx += x * x
	}
	beta := sxy / sxx
	var g0, g1, prev float64
	for j, r := range rates {
		e := r - m - beta*(float64(j)-mid)
		g0 += e * e
		if j > 0 {
			g1 += e * prev
		}
		prev = e
	}
	// Under independent noise of variance σ², E[Σe_j²] = (b − 2)σ² and
	// E[Σe_j·e_{j−1}] = −c·σ², c = Σ_{j≥1} H_{j,j−1} = (b − 1)/b +
	// Σx_j·x_{j−1} / Σx_j² (H the fit's hat matrix): the residuals of a
	// fitted line lean against their neighbours. Dividing the long-run sum
	// by b − 2 − 2c instead of b − 2 makes it unbiased there.
	var sxl float64
	for j := 1; j < b; j++ {
		sxl += (float64(j) - mid) * (float64(j-1) - mid)
	}
	c := float64(b-1)/float64(b) + sxl/sxx
	lrv := max((g0+2*g1)/(float64(b-2)-2*c), g0/float64(b-2)/4)
	return tQuantile(max((b-2)/2, 1)) * math.Sqrt(lrv/float64(b))
}

// spanRates returns the rates, in tokens per bin, of b spans of nearly
// equal length that each hold whole scheduler steps: the spans run from the
// first bin with tokens to the last one (whose tokens begin the step after
// the last span), and each inner boundary moves forward to the first bin
// with tokens.
func spanRates(bins []float64, b int) []float64 {
	first, last := -1, -1
	for i, x := range bins {
		if x > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	n := last - first
	if b < 1 || n < b {
		return nil
	}
	edges := make([]int, b+1)
	edges[0], edges[b] = first, last
	for j := 1; j < b; j++ {
		e := max(first+j*n/b, edges[j-1]+1)
		for e < first+(j+1)*n/b-1 && bins[e] == 0 {
			e++
		}
		edges[j] = e
	}
	rates := make([]float64, 0, b)
	for j := range b {
		if edges[j+1] <= edges[j] {
			continue
		}
		var tokens float64
		for _, x := range bins[edges[j]:edges[j+1]] {
			tokens += x
		}
		rates = append(rates, tokens/float64(edges[j+1]-edges[j]))
	}
	return rates
}

// bootstrapResamples is how many resamples bootstrapMedianCI draws: enough
// for the 2.5% and 97.5% points to settle within a few percent of the
// interval's width, cheap next to a window.
const bootstrapResamples = 400

// minBootstrap is the fewest values a bootstrap interval is given for:
// below it the resampled medians take only a handful of distinct values.
const minBootstrap = 5

// bootstrapMedianCI is the percentile-bootstrap interval of the median of
// xs, one value per request: draw len(xs) values with replacement, take
// their median, repeat; half the distance between the 2.5% and 97.5%
// points of those medians is the half-width. A fixed seed keeps a run's
// document reproducible from its samples. Fewer than minBootstrap values
// give 0 (unknown).
func bootstrapMedianCI(xs []float64) float64 {
	n := len(xs)
	if n < minBootstrap {
		return 0
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0xb00757a9))
	meds := make([]float64, bootstrapResamples)
	buf := make([]float64, n)
	for i := range meds {
		for j := range buf {
			buf[j] = xs[rng.IntN(n)]
		}
		meds[i] = Median(buf)
	}
	return (Quantile(meds, 0.975) - Quantile(meds, 0.025)) / 2
}
