package quality

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// The Wilson intervals below are computed by hand from the formula (and
// agree with published tables: 8/10 → 0.490–0.943, 0/10 → 0–0.278).
func TestWilsonHandComputed(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.49016, 0.94332},
		{0, 10, 0, 0.27753},
		{10, 10, 0.72247, 1},
		{160, 200, 0.73914, 0.84955}, // centre 0.794346, half 0.055202
		{0, 0, 0, 1},
	} {
		got := Wilson(tc.k, tc.n)
		if !near(got.Lo, tc.lo, 5e-5) || !near(got.Hi, tc.hi, 5e-5) {
			t.Errorf("Wilson(%d, %d) = [%.5f, %.5f], want [%.5f, %.5f]", tc.k, tc.n, got.Lo, got.Hi, tc.lo, tc.hi)
		}
	}
}

// Exact McNemar p-values summed by hand: 2 · Σ_{i≤min} C(b+c, i) / 2^(b+c).
func TestMcNemarExactHandComputed(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{0, 6, 2.0 / 64},                      // 0.03125: six one-way flips are significant
		{5, 0, 2.0 / 32},                      // 0.0625: five are not
		{2, 8, 2 * 56.0 / 1024},               // 1 + 10 + 45
		{9, 3, 2 * 299.0 / 4096},              // 1 + 12 + 66 + 220
		{5, 5, 1},                             // capped
		{1, 1, 1},                             // 2 · 3/4 capped
		{0, 1, 1},                             // 2 · 1/2
		{3, 4, 2 * (1 + 7 + 21 + 35) / 128.0}, // = 1
	} {
		if got := McNemarExact(tc.b, tc.c); !near(got, tc.want, 1e-12) {
			t.Errorf("McNemarExact(%d, %d) = %.12f, want %.12f", tc.b, tc.c, got, tc.want)
		}
	}
}

// Large samples stay finite and symmetric: b = 4,000 against c = 6,000 is
// z = 20 standard errors away, p ≈ 5.5e−89 under the normal approximation.
func TestMcNemarExactLargeN(t *testing.T) {
	p := McNemarExact(4000, 6000)
	if p <= 0 || math.IsNaN(p) || math.Log10(p) < -92 || math.Log10(p) > -85 {
		t.Fatalf("McNemarExact(4000, 6000) = %g, want about 1e-88", p)
	}
	if q := McNemarExact(6000, 4000); q != p {
		t.Errorf("not symmetric: %g against %g", q, p)
	}
	if p := McNemarExact(50000, 50000); p != 1 {
		t.Errorf("McNemarExact(50000, 50000) = %g, want 1", p)
	}
	if p := McNemarExact(0, 2000); p <= 0 && math.Log10(2)-2000*math.Log10(2) > -308 {
		t.Errorf("McNemarExact(0, 2000) = %g", p)
	}
}

func TestPairedDeltaHandComputed(t *testing.T) {
	// b' = 2.5, c' = 8.5, n' = 102: se = √(11 − 36/102)/102 = 0.031990.
	d, ci := PairedDelta(2, 8, 100)
	if !near(d, 0.06, 1e-12) || !near(ci.Lo, -0.002700, 5e-6) || !near(ci.Hi, 0.122700, 5e-6) {
		t.Errorf("PairedDelta(2, 8, 100) = %.6f [%.6f, %.6f], want 0.06 [-0.002700, 0.122700]", d, ci.Lo, ci.Hi)
	}
	// No flips: a point estimate of 0 with a non-zero interval.
	d, ci = PairedDelta(0, 0, 200)
	if d != 0 || !(ci.Lo < 0 && ci.Hi > 0) {
		t.Errorf("PairedDelta(0, 0, 200) = %g [%g, %g], want 0 inside a proper interval", d, ci.Lo, ci.Hi)
	}
}

func TestMinDetectableLossHandComputed(t *testing.T) {
	for _, tc := range []struct {
		b, c, n int
		want    float64
	}{
		{0, 0, 200, 2.801585218 * math.Sqrt(6) / 200}, // 0.034312
		{10, 10, 200, 2.801585218 * math.Sqrt(20) / 200},
		{0, 0, 1000, 2.801585218 * math.Sqrt(6) / 1000},
		{0, 0, 10, 2.801585218 * math.Sqrt(6) / 10}, // 6.9 items of 10
		{0, 0, 6, 1}, // more than everything: capped
	} {
		if got := MinDetectableLoss(tc.b, tc.c, tc.n); !near(got, math.Min(1, tc.want), 1e-9) {
			t.Errorf("MinDetectableLoss(%d, %d, %d) = %.6f, want %.6f", tc.b, tc.c, tc.n, got, tc.want)
		}
	}
	// The floor of six one-way flips binds when the normal term is below it.
	if got := MinDetectableLoss(0, 0, 1); got != 1 {
		t.Errorf("MinDetectableLoss(0, 0, 1) = %g, want 1", got)
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{10, 20, 30, 40, 50}
	for _, tc := range []struct{ q, want float64 }{{0.5, 30}, {0.9, 46}, {0, 10}, {1, 50}} {
		if got := quantile(xs, tc.q); !near(got, tc.want, 1e-12) {
			t.Errorf("quantile(%g) = %g, want %g", tc.q, got, tc.want)
		}
	}
}
