package hardware_test

import (
	"math"
	"slices"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSummarizeEmptyIsNil(t *testing.T) {
	t.Parallel()
	if got := hardware.Summarize(nil); got != nil {
		t.Fatalf("Summarize(nil) = %+v, want nil", got)
	}
}

func TestSummarizeSumsPowerPerTick(t *testing.T) {
	t.Parallel()
	// Two GPUs, three ticks. Power per tick: 300+200=500, 350+250=600,
	// 400+300=700 → mean 600, max 700.
	samples := []hardware.GPUSample{
		{T: 1, GPU: 0, PowerW: 300, SMClockMHz: 1800, MemClockMHz: 9000, TempC: 60, UtilGPU: 90, UtilMem: 40, VRAMUsedBytes: 10 << 30},
		{T: 1, GPU: 1, PowerW: 200, SMClockMHz: 1600, MemClockMHz: 9000, TempC: 50, UtilGPU: 80, UtilMem: 30, VRAMUsedBytes: 11 << 30},
		{T: 2, GPU: 0, PowerW: 350, SMClockMHz: 1900, MemClockMHz: 9000, TempC: 70, UtilGPU: 100, UtilMem: 50, VRAMUsedBytes: 10 << 30, Throttle: []string{"power cap"}},
		{T: 2, GPU: 1, PowerW: 250, SMClockMHz: 1700, MemClockMHz: 9000, TempC: 55, UtilGPU: 70, UtilMem: 20, VRAMUsedBytes: 12 << 30},
		{T: 3, GPU: 0, PowerW: 400, SMClockMHz: 1500, MemClockMHz: 9000, TempC: 83, UtilGPU: 100, UtilMem: 60, VRAMUsedBytes: 10 << 30, Throttle: []string{"thermal", "power cap"}},
		{T: 3, GPU: 1, PowerW: 300, SMClockMHz: 1600, MemClockMHz: 9000, TempC: 60, UtilGPU: 60, UtilMem: 40, VRAMUsedBytes: 11 << 30},
	}
	got := hardware.Summarize(samples)
	want := hardware.GPUStats{
		Samples:         3,
		PowerMeanW:      600,
		PowerMaxW:       700,
		SMClockMeanMHz:  (1800 + 1600 + 1900 + 1700 + 1500 + 1600) / 6.0,
		SMClockMaxMHz:   1900,
		MemClockMeanMHz: 9000,
		TempMeanC:       (60 + 50 + 70 + 55 + 83 + 60) / 6.0,
		TempMaxC:        83,
		UtilGPUMean:     (90 + 80 + 100 + 70 + 100 + 60) / 6.0,
		UtilMemMean:     (40 + 30 + 50 + 20 + 60 + 40) / 6.0,
		VRAMUsedMax:     12 << 30,
		Throttled:       []string{"power cap", "thermal"},
	}
	if got.Samples != want.Samples || got.VRAMUsedMax != want.VRAMUsedMax || !slices.Equal(got.Throttled, want.Throttled) {
		t.Fatalf("Summarize counts = %+v, want %+v", *got, want)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"PowerMeanW", got.PowerMeanW, want.PowerMeanW},
		{"PowerMaxW", got.PowerMaxW, want.PowerMaxW},
		{"SMClockMeanMHz", got.SMClockMeanMHz, want.SMClockMeanMHz},
		{"SMClockMaxMHz", got.SMClockMaxMHz, want.SMClockMaxMHz},
		{"MemClockMeanMHz", got.MemClockMeanMHz, want.MemClockMeanMHz},
		{"TempMeanC", got.TempMeanC, want.TempMeanC},
		{"TempMaxC", got.TempMaxC, want.TempMaxC},
		{"UtilGPUMean", got.UtilGPUMean, want.UtilGPUMean},
		{"UtilMemMean", got.UtilMemMean, want.UtilMemMean},
	} {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
}

func TestSummarizeOneGPU(t *testing.T) {
	t.Parallel()
	got := hardware.Summarize([]hardware.GPUSample{
		{T: 0.5, PowerW: 100, TempC: 40},
		{T: 1.5, PowerW: 200, TempC: 50},
		{T: 2.5, PowerW: 150, TempC: 45},
	})
	if got.Samples != 3 || !near(got.PowerMeanW, 150) || !near(got.PowerMaxW, 200) || !near(got.TempMeanC, 45) || got.Throttled != nil {
		t.Fatalf("Summarize = %+v, want 3 samples, mean 150 W, max 200 W, 45 °C, no throttle", *got)
	}
}

func TestEnergyPerToken(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		powerW, winS float64
		tokens       int
		want         float64
	}{
		{"350 W for 60 s over 21000 tokens", 350, 60, 21000, 1},
		{"300 W for 30 s over 4500 tokens", 300, 30, 4500, 2},
		{"two cards 600 W, 10 s, 12000 tokens", 600, 10, 12000, 0.5},
		{"no tokens", 350, 60, 0, 0},
		{"negative tokens", 350, 60, -5, 0},
		{"no power reading", 0, 60, 1000, 0},
		{"infinite power", math.Inf(1), 60, 1000, 0},
	} {
		if got := hardware.EnergyPerToken(c.powerW, c.winS, c.tokens); !near(got, c.want) {
			t.Errorf("%s: EnergyPerToken(%v, %v, %d) = %v, want %v", c.name, c.powerW, c.winS, c.tokens, got, c.want)
		}
	}
}

// FuzzSummarize feeds arbitrary readings (NVML values are outside input):
// Summarize must not panic and must keep its invariants.
func FuzzSummarize(f *testing.F) {
	f.Add(1.0, 300.0, 2.0, 200.0, uint64(5), 3)
	f.Add(0.0, 0.0, 0.0, 0.0, uint64(0), 0)
	f.Add(math.NaN(), math.Inf(1), -1.0, -50.0, uint64(1<<63), 1)
	f.Fuzz(func(t *testing.T, t1, p1, t2, p2 float64, mask uint64, gpu int) {
		s := []hardware.GPUSample{
			{T: t1, GPU: gpu, PowerW: p1, Throttle: hardware.ThrottleReasons(mask)},
			{T: t2, GPU: gpu + 1, PowerW: p2},
		}
		st := hardware.Summarize(s)
		if st == nil || st.Samples < 1 || st.Samples > 2 {
			t.Fatalf("Summarize(%v) = %+v, want 1 or 2 ticks", s, st)
		}
		if len(st.Throttled) != len(hardware.ThrottleReasons(mask)) {
			t.Fatalf("Throttled %v, want %v", st.Throttled, hardware.ThrottleReasons(mask))
		}
	})
}

func TestSummarizeCountsEnergyFromTheCounterPerGPU(t *testing.T) {
	// Two cards, three ticks 1 s apart: card 0's counter gains 600 J over
	// 2 s (300 W), card 1's 400 J (200 W); the point power readings say
	// otherwise, and the counter wins.
	s := []hardware.GPUSample{
		{T: 0, GPU: 0, PowerW: 250, EnergyJ: 1000}, {T: 0, GPU: 1, PowerW: 150, EnergyJ: 5000},
		{T: 1, GPU: 0, PowerW: 350, EnergyJ: 1300}, {T: 1, GPU: 1, PowerW: 250, EnergyJ: 5200},
		{T: 2, GPU: 0, PowerW: 290, EnergyJ: 1600}, {T: 2, GPU: 1, PowerW: 190, EnergyJ: 5400},
	}
	st := hardware.Summarize(s)
	if st.EnergySource != hardware.EnergyFromCounter || !near(st.EnergyMeanW, 500) {
		t.Fatalf("energy %v W from %q, want 500 W from the counter", st.EnergyMeanW, st.EnergySource)
	}
	if len(st.PerGPU) != 2 || st.PerGPU[0].GPU != 0 || !near(st.PerGPU[0].EnergyMeanW, 300) || !near(st.PerGPU[1].EnergyMeanW, 200) ||
		!near(st.PerGPU[0].PowerMeanW, 890.0/3) || st.PerGPU[1].PowerMaxW != 250 {
		t.Errorf("per GPU %+v", st.PerGPU)
	}
}

func TestSummarizeFallsBackToPowerWithoutEveryCounter(t *testing.T) {
	s := []hardware.GPUSample{
		{T: 0, GPU: 0, PowerW: 300, EnergyJ: 1000}, {T: 0, GPU: 1, PowerW: 100},
		{T: 1, GPU: 0, PowerW: 200, EnergyJ: 1300}, {T: 1, GPU: 1, PowerW: 200},
	}
	st := hardware.Summarize(s)
	if st.EnergySource != hardware.EnergyFromPower || !near(st.EnergyMeanW, st.PowerMeanW) || !near(st.EnergyMeanW, 400) {
		t.Fatalf("energy %v W from %q, want the 400 W of the power samples", st.EnergyMeanW, st.EnergySource)
	}
	if !near(st.PerGPU[0].EnergyMeanW, 250) || !near(st.PerGPU[1].EnergyMeanW, 150) {
		t.Errorf("per GPU %+v: each from its power samples", st.PerGPU)
	}
	one := hardware.Summarize([]hardware.GPUSample{{T: 0, PowerW: 100, EnergyJ: 10}})
	if one.EnergySource != hardware.EnergyFromPower || one.PerGPU != nil {
		t.Errorf("one reading: %+v, want power samples and no split", one)
	}
	reset := hardware.Summarize([]hardware.GPUSample{{T: 0, PowerW: 100, EnergyJ: 900}, {T: 1, PowerW: 100, EnergyJ: 5}})
	if reset.EnergySource != hardware.EnergyFromPower {
		t.Errorf("a counter that ran backwards (driver reload) counted: %+v", reset)
	}
	if none := hardware.Summarize([]hardware.GPUSample{{T: 0}}); none.EnergySource != "" {
		t.Errorf("no power at all has a source %q", none.EnergySource)
	}
}
