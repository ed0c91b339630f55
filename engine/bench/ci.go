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

// rateCI is the half-width of the 95% interval of the mean token rate of
// a stationary stretch of a window, in tokens per bin, from its bins
// (METHOD.md: Uncertainty). It uses batch means: the stretch is cut into
// ciBatches spans of whole scheduler steps (spanRates), each span's rate
// is one observation, and spans longer than the series' correlation (a
// growing context, stream restarts) are nearly independent. A chunk the
// client reads late (a busy machine, a fast simulator) moves its tokens
// from one span into the next without changing the total: that adds as
// much to the spans' variance γ0 as it takes from twice their lag-1
// covariance γ1, so the variance of the mean is taken as (γ0 + 2γ1) / b,
// the first terms of the series' long-run variance, never below γ0 / (4b).
// Estimating γ1 as well leaves the variance estimate less sure than s²
// alone, so t has (b − 1) / 2 degrees of freedom rather than b − 1 (by
// simulation: 93% coverage on independent step times, see TestRateCICovers).
// It returns 0 with fewer than 3 spans.
func rateCI(bins []float64) float64 {
	rates := spanRates(bins, min(ciBatches, len(bins)))
	b := len(rates)
	if b < 3 {
		return 0
	}
	m, _ := meanCI(rates)
	var g0, g1 float64
	for j, x := range rates {
		g0 += (x - m) * (x - m)
		if j > 0 {
			g1 += (x - m) * (rates[j-1] - m)
		}
	}
	g0 /= float64(b - 1)
	g1 /= float64(b - 1)
	return tQuantile(max((b-1)/2, 1)) * math.Sqrt(max(g0+2*g1, g0/4)/float64(b))
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
