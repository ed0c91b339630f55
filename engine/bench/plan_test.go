package bench

import (
	"slices"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{4, 1, 3, 2}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4, 5}, 0.5, 3},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9.1},
		{[]float64{7}, 0.99, 7},
		{nil, 0.5, 0},
	} {
		if got := Quantile(tc.xs, tc.q); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.xs, tc.q, got, tc.want)
		}
	}
}

func TestPredictMatchesReferenceStatuses(t *testing.T) {
	t.Parallel()
	// The reference RTX 3060 run: max_model_len 262144, M 8192 and a KV
	// capacity between 393,216 and 524,287 tokens; 431,632 in between.
	const mml, m, k = 262144, 8192, 431632
	for _, tc := range []struct {
		c, n int
		want Status
	}{
		{0, 32, ""}, {0, 64, StatusOverCapacity}, {16384, 16, ""}, {16384, 32, StatusOverCapacity},
		{32768, 8, ""}, {65536, 4, ""}, {65536, 8, StatusOverCapacity}, {131072, 2, ""},
		{253952, 1, ""}, {253952 + 1, 1, StatusExceedsLength},
	} {
		if got := Predict(tc.c, tc.n, m, mml, k); got != tc.want {
			t.Errorf("Predict(%d, %d) = %q, want %q", tc.c, tc.n, got, tc.want)
		}
	}
	if got := Predict(1<<30, 1, m, 0, 0); got != "" {
		t.Errorf("unknown limits predicted %q", got)
	}
}

func TestResolveAndEstimate(t *testing.T) {
	t.Parallel()
	p := Plan{Contexts: []int{ContextMax, 16384, 0, 16384}, Concurrency: []int{4, 1}, PrefillContexts: []int{8192},
		DurationS: 30, MaxOutput: 8192}
	r := p.Resolve(262144)
	if got, want := r.Contexts, []int{0, 16384, 253952}; !slices.Equal(got, want) {
		t.Errorf("contexts %v, want %v", got, want)
	}
	if !slices.Equal(r.Concurrency, []int{1, 4}) {
		t.Errorf("concurrency %v", r.Concurrency)
	}
	// Unknown capacity: 6 decode cells × 30 s, warm-up prefill of N·C tokens
	// at the assumed rate, and the 8K prefill cell.
	tokens := float64((1 + 4) * (16384 + 253952))
	want := 6*30 + (tokens+8192)/AssumedPrefillRate
	if got := Estimate(r, 262144, 0, nil).Seconds(); got < want-0.01 || got > want+0.01 {
		t.Errorf("Estimate = %.2f s, want %.2f", got, want)
	}
	// A measured prefill rate is used instead of the assumption.
	measured := []Cell{{Phase: PhasePrefill, Context: 8192, PromptTokS: 4096}}
	if got := Estimate(Plan{PrefillContexts: []int{8192}, DurationS: 1, MaxOutput: 1}, 0, 0, measured); got != 2*time.Second {
		t.Errorf("prefill estimate %v, want 2s", got)
	}
}

func TestPrefillRateInterpolates(t *testing.T) {
	t.Parallel()
	cells := []Cell{{Phase: PhasePrefill, Context: 8192, PromptTokS: 2000}, {Phase: PhasePrefill, Context: 32768, PromptTokS: 1000}}
	if got := PrefillRate(cells, 16384); got != 1500 { // halfway in log2 between 8K and 32K
		t.Errorf("rate at 16K = %v, want 1500", got)
	}
	if PrefillRate(cells, 1024) != 2000 || PrefillRate(cells, 1<<20) != 1000 {
		t.Error("rates beyond the measured range should hold the end values")
	}
}

func TestParseTokens(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"16K": 16384, "16k": 16384, "0": 0, "8192": 8192, "max": ContextMax, " 1M ": 1 << 20} {
		if got, err := ParseTokens(in); err != nil || got != want {
			t.Errorf("ParseTokens(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "K", "12Q", "1.5K"} {
		if _, err := ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
		}
	}
	if l, err := ParseTokenList("0,16K,,max"); err != nil || !slices.Equal(l, []int{0, 16384, ContextMax}) {
		t.Errorf("ParseTokenList = %v, %v", l, err)
	}
	for c, want := range map[int]string{16384: "16K", 253952: "248K", 0: "0", 1000: "1000"} {
		if got := ContextLabel(c); got != want {
			t.Errorf("ContextLabel(%d) = %q, want %q", c, got, want)
		}
	}
}

func FuzzParseTokenList(f *testing.F) {
	f.Add("0,16K,32K,max")
	f.Add("1M,,9999999999999999999K")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseTokenList(s)
		if err != nil {
			return
		}
		for _, n := range l {
			if n < 0 && n != ContextMax {
				t.Fatalf("ParseTokenList(%q) gave %d", s, n)
			}
		}
	})
}
