package bench

import (
	"github.com/rigbench/rigbench/engine/rundoc"
	"math"
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
		want rundoc.Status
	}{
		{0, 32, ""}, {0, 64, rundoc.StatusOverCapacity}, {16384, 16, ""}, {16384, 32, rundoc.StatusOverCapacity},
		{32768, 8, ""}, {65536, 4, ""}, {65536, 8, rundoc.StatusOverCapacity}, {131072, 2, ""},
		{253952, 1, ""}, {253952 + 1, 1, rundoc.StatusExceedsLength},
	} {
		if got := DecodeStatus(tc.c, tc.n, m, Limits{MaxModelLen: mml, KVCapacity: k}); got != tc.want {
			t.Errorf("DecodeStatus(%d, %d) = %q, want %q", tc.c, tc.n, got, tc.want)
		}
	}
	if got := DecodeStatus(1<<30, 1, m, Limits{}); got != "" {
		t.Errorf("unknown limits predicted %q", got)
	}
}

// TestPredictCountsSlots is issue 30 item 1: a server that runs 4 requests
// at once holds 4 in its KV cache however many are in flight, so 8K × 8 on
// llama-server's 4 slots and a 65,536-token pool runs (queued) instead of
// being refused, while 8K × 8 without a slot limit is over capacity.
func TestPredictCountsSlots(t *testing.T) {
	t.Parallel()
	const c, m = 8192, 512
	slots := Limits{MaxModelLen: 65536, KVCapacity: 65536, Slots: 4}
	if got := DecodeStatus(c, 8, m, slots); got != "" || !slots.Queued(8) || slots.Queued(4) || slots.Running(8) != 4 {
		t.Errorf("8K × 8 on 4 slots: %q, queued %v; want it to run queued", got, slots.Queued(8))
	}
	if got := DecodeStatus(c, 8, m, Limits{MaxModelLen: 65536, KVCapacity: 65536}); got != rundoc.StatusOverCapacity {
		t.Errorf("8K × 8 with no slot limit: %q, want over capacity", got)
	}
	// The slots' own KV can still be too much: 4 × (16K + 512) > 65,536.
	if got := DecodeStatus(16384, 8, m, slots); got != rundoc.StatusOverCapacity {
		t.Errorf("16K × 8 on 4 slots: %q, want over capacity", got)
	}
}

func TestResolveAndEstimate(t *testing.T) {
	t.Parallel()
	p := rundoc.Plan{Contexts: []int{rundoc.ContextMax, 16384, 0, 16384}, Concurrency: []int{4, 1}, PrefillContexts: []int{8192},
		DurationS: 30, MaxOutput: 8192}
	r := p.Resolve(262144)
	if got, want := r.Contexts, []int{0, 16384, 253952}; !slices.Equal(got, want) {
		t.Errorf("contexts %v, want %v", got, want)
	}
	if !slices.Equal(r.Concurrency, []int{1, 4}) {
		t.Errorf("concurrency %v", r.Concurrency)
	}
	// A prefill request asks for one token, so max is max_model_len − 1.
	pm := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, PrefillContexts: []int{rundoc.ContextMax, 8192}, DurationS: 30, MaxOutput: 8192}
	if got, want := pm.Resolve(262144).PrefillContexts, []int{8192, 262143}; !slices.Equal(got, want) {
		t.Errorf("prefill contexts %v, want %v", got, want)
	}
	if err := pm.Resolve(262144).Validate(); err != nil {
		t.Errorf("a plan with prefill max does not validate once resolved: %v", err)
	}
	if got := pm.Resolve(0).PrefillContexts; !slices.Equal(got, []int{8192}) {
		t.Errorf("prefill max with max_model_len unknown gives %v, want it dropped", got)
	}
	// Unknown capacity: 6 decode cells × 30 s, warm-up prefill of N·C tokens
	// at the assumed rate, and the 8K prefill cell with its hidden warm-up.
	want := 6*(30+AssumedRamp.Seconds()) + float64(1+4)*(16384/PrefillRate(nil, 16384)+253952/PrefillRate(nil, 253952)) + 2*8192/PrefillRate(nil, 8192)
	if got := PlanDuration(r, Limits{MaxModelLen: 262144}, nil).Seconds(); got < want-0.01 || got > want+0.01 {
		t.Errorf("PlanDuration = %.2f s, want %.2f", got, want)
	}
	// A measured prefill rate is used instead of the assumption: 2 s for
	// the sample, 2 s for the warm-up before it.
	measured := []rundoc.Cell{{Phase: rundoc.PhasePrefill, Context: 8192, PromptTokS: 4096}}
	if got := PlanDuration(rundoc.Plan{PrefillContexts: []int{8192}, DurationS: 1, MaxOutput: 1}, Limits{}, measured); got != 4*time.Second {
		t.Errorf("prefill estimate %v, want 4s", got)
	}
}

func TestPrefillRateInterpolates(t *testing.T) {
	t.Parallel()
	cells := []rundoc.Cell{{Phase: rundoc.PhasePrefill, Context: 8192, PromptTokS: 2000}, {Phase: rundoc.PhasePrefill, Context: 32768, PromptTokS: 1000}}
	if got := PrefillRate(cells, 16384); got != 1500 { // halfway in log2 between 8K and 32K
		t.Errorf("rate at 16K = %v, want 1500", got)
	}
	// Beyond 32K the cost per token keeps growing along the line through
	// the last two points: 1/r = 1/1000 + (1/1000 − 1/2000)/24576 × (C − 32768).
	if got, want := PrefillRate(cells, 1<<20), 1/(1e-3+(1e-3-5e-4)/24576*float64(1<<20-32768)); math.Abs(got-want) > 0.01 {
		t.Errorf("rate at 1M = %.2f, want %.2f from the linear growth of the cost per token", got, want)
	}
	// Below 8K the short-context shape: 2000 × (1 + 8192/34000) / (1 + 1024/34000).
	if got, want := PrefillRate(cells, 1024), 2000*(1+8192.0/34000)/(1+1024.0/34000); math.Abs(got-want) > 0.01 {
		t.Errorf("rate at 1K = %.2f, want %.2f", got, want)
	}
	// One point: beyond it the shape too.
	one := cells[:1]
	if got, want := PrefillRate(one, 65536), 2000*(1+8192.0/34000)/(1+65536.0/34000); math.Abs(got-want) > 0.01 {
		t.Errorf("rate at 64K from one 8K point = %.2f, want %.2f", got, want)
	}
	if got := PrefillRate(nil, 1); math.Abs(got-AssumedPrefillRate) > 0.1 {
		t.Errorf("rate with nothing measured at a 1-token context = %.1f, want about %v", got, AssumedPrefillRate)
	}
}

// The shape is the published RTX 3060 run's: from its 8K to 64K prefill
// cells, the rate predicted at 128K is within 5% of the one it measured.
func TestPrefillRateExtrapolatesTheReference(t *testing.T) {
	t.Parallel()
	measured := []rundoc.Cell{
		{Phase: rundoc.PhasePrefill, Context: 8192, PromptTokS: 2341},
		{Phase: rundoc.PhasePrefill, Context: 16384, PromptTokS: 1961},
		{Phase: rundoc.PhasePrefill, Context: 32768, PromptTokS: 1489},
		{Phase: rundoc.PhasePrefill, Context: 65536, PromptTokS: 1002},
	}
	if got := PrefillRate(measured, 131072); math.Abs(got-606)/606 > 0.05 {
		t.Errorf("rate at 128K = %.0f, the reference measured 606", got)
	}
	if got := PrefillRate(measured[:1], 131072); math.Abs(got-606)/606 > 0.10 {
		t.Errorf("rate at 128K from the 8K cell alone = %.0f, the reference measured 606", got)
	}
}

func TestParseTokens(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"16K": 16384, "16k": 16384, "0": 0, "8192": 8192, "max": rundoc.ContextMax, " 1M ": 1 << 20} {
		if got, err := rundoc.ParseTokens(in); err != nil || got != want {
			t.Errorf("ParseTokens(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "K", "12Q", "1.5K"} {
		if _, err := rundoc.ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
		}
	}
	if l, err := rundoc.ParseTokenList("0,16K,,max"); err != nil || !slices.Equal(l, []int{0, 16384, rundoc.ContextMax}) {
		t.Errorf("ParseTokenList = %v, %v", l, err)
	}
	for c, want := range map[int]string{16384: "16K", 253952: "248K", 0: "0", 1000: "1000"} {
		if got := rundoc.ContextLabel(c); got != want {
			t.Errorf("ContextLabel(%d) = %q, want %q", c, got, want)
		}
	}
}

func FuzzParseTokenList(f *testing.F) {
	f.Add("0,16K,32K,max")
	f.Add("1M,,9999999999999999999K")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := rundoc.ParseTokenList(s)
		if err != nil {
			return
		}
		for _, n := range l {
			if n < 0 && n != rundoc.ContextMax {
				t.Fatalf("ParseTokenList(%q) gave %d", s, n)
			}
		}
	})
}
