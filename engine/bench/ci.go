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
// ciBatches spans in time order, each span's rate (tokens / length) is one
// observation, and spans longer than the series' correlation (a growing
// context, stream restarts) are nearly independent, so the mean has
// variance s² / b and the half-width is t(b−1) · s / √b. Each inner
// boundary moves forward to the first bin with tokens, so a span holds
// whole scheduler steps: with fixed boundaries a span of 20.5 steps holds
// 20 or 21, a ±2.5% swing that is not the card's. It returns 0 with fewer
// than 3 spans.
func rateCI(bins []float64) float64 {
	rates := spanRates(bins, min(ciBatches, len(bins)))
	if len(rates) < 3 {
		return 0
	}
	_, half := meanCI(rates)
	return half
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
