//go:build linux && cgo

package probe_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
)

// telemetryCard is a mock GPU whose n-th power reading is base + 10 n W
// and whose clocks-event mask is mask.
func telemetryCard(base uint32, mask uint64) (*mock.Device, *atomic.Int32) {
	d := consumerCard()
	var reads atomic.Int32
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) {
		n := reads.Add(1) - 1
		return (base + 10*uint32(n)) * 1000, nvml.SUCCESS
	}
	d.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
		if c == nvml.CLOCK_SM {
			return 1777, nvml.SUCCESS
		}
		return 7501, nvml.SUCCESS
	}
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 66, nvml.SUCCESS }
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) { return nvml.Utilization{Gpu: 97, Memory: 45}, nvml.SUCCESS }
	d.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return mask, nvml.SUCCESS }
	d.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) { return mask, nvml.SUCCESS }
	return d, &reads
}

func startSampler(t *testing.T, m *machine, opts ...probe.Option) (*probe.Sampler, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	s := probe.NewSampler(append([]probe.Option{probe.WithNVML(m), probe.WithClock(clock)}, opts...)...)
	if err := s.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Stop)
	return s, clock
}

func TestSamplerWindowTwoGPUs(t *testing.T) {
	t.Parallel()
	gpu0, reads0 := telemetryCard(300, 0x4) // power cap
	gpu1, _ := telemetryCard(200, 0x40|0x1) // thermal (+ idle, ignored)
	m := newMachine([]nvml.Device{gpu0, gpu1})
	s, clock := startSampler(t, m)
	if clock.period() != probe.DefaultInterval {
		t.Fatalf("ticker period %v, want the default %v", clock.period(), probe.DefaultInterval)
	}

	clock.Tick() // no window open: NVML is not read
	if n := reads0.Load(); n != 0 {
		t.Fatalf("%d power reads with no window open, want 0", n)
	}
	stop := s.StartWindow()
	clock.Tick()
	clock.Tick()
	clock.Tick()
	samples := stop()

	if len(samples) != 6 {
		t.Fatalf("got %d samples, want 3 ticks × 2 GPUs: %+v", len(samples), samples)
	}
	for i, smp := range samples {
		tick, gpu := i/2, i%2
		wantT := float64(tick + 1) // seconds since StartWindow
		wantP := []float64{300, 200}[gpu] + 10*float64(tick)
		if smp.T != wantT || smp.GPU != gpu || smp.PowerW != wantP {
			t.Errorf("sample %d: T %v GPU %d power %v, want T %v GPU %d power %v", i, smp.T, smp.GPU, smp.PowerW, wantT, gpu, wantP)
		}
		if smp.SMClockMHz != 1777 || smp.MemClockMHz != 7501 || smp.TempC != 66 || smp.UtilGPU != 97 || smp.UtilMem != 45 || smp.VRAMUsedBytes != 1024<<20 {
			t.Errorf("sample %d = %+v, want the mock's clocks, temperature, utilisation and VRAM", i, smp)
		}
		if want := [][]string{{"power cap"}, {"thermal"}}[gpu]; !slices.Equal(smp.Throttle, want) {
			t.Errorf("sample %d throttle %q, want %q", i, smp.Throttle, want)
		}
	}
	// Per tick: 500, 520, 540 W → mean 520, max 540.
	st := hardware.Summarize(samples)
	if st.Samples != 3 || st.PowerMeanW != 520 || st.PowerMaxW != 540 || !slices.Equal(st.Throttled, []string{"power cap", "thermal"}) {
		t.Errorf("Summarize = %+v, want 3 ticks, 520 W mean, 540 W max, power cap + thermal", *st)
	}
	// 520 W × 3 s / 1560 tokens = 1 J/token.
	if e := hardware.EnergyPerToken(st.PowerMeanW, 3, 1560); math.Abs(e-1) > 1e-12 {
		t.Errorf("EnergyPerToken = %v, want 1", e)
	}

	clock.Tick() // the window is closed: it gains nothing
	if again := stop(); len(again) != 6 {
		t.Errorf("a second stop returned %d samples, want the same 6", len(again))
	}
}

func TestSamplerShortWindowGetsOneReading(t *testing.T) {
	t.Parallel()
	card, _ := telemetryCard(150, 0)
	s, clock := startSampler(t, newMachine([]nvml.Device{card}))
	stop := s.StartWindow()
	clock.Advance(400 * time.Millisecond)
	samples := stop()
	if len(samples) != 1 || samples[0].T != 0.4 || samples[0].PowerW != 150 || samples[0].Throttle != nil {
		t.Fatalf("samples = %+v, want one reading at T=0.4 s of 150 W, unthrottled", samples)
	}
}

func TestSamplerOverlappingWindows(t *testing.T) {
	t.Parallel()
	card, reads := telemetryCard(100, 0)
	s, clock := startSampler(t, newMachine([]nvml.Device{card}), probe.WithInterval(500*time.Millisecond))
	first := s.StartWindow()
	clock.Tick()
	second := s.StartWindow()
	clock.Tick()
	a, b := first(), second()
	if len(a) != 2 || a[0].T != 0.5 || a[1].T != 1 {
		t.Errorf("first window %+v, want readings at 0.5 s and 1 s", a)
	}
	if len(b) != 1 || b[0].T != 0.5 || b[0].PowerW != a[1].PowerW {
		t.Errorf("second window %+v, want the shared reading at 0.5 s after its start", b)
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("%d power reads, want 2: one per tick, shared by the windows", n)
	}
}

func TestSamplerLifecycle(t *testing.T) {
	t.Parallel()
	card, _ := telemetryCard(100, 0)
	m := newMachine([]nvml.Device{card})
	clock := newFakeClock()
	s := probe.NewSampler(probe.WithNVML(m), probe.WithClock(clock))
	if got := s.StartWindow()(); got != nil {
		t.Errorf("window of a stopped sampler = %v, want nil", got)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := s.Start(context.Background()); !errors.Is(err, probe.ErrSamplerRunning) {
		t.Errorf("second Start = %v, want ErrSamplerRunning", err)
	}
	stop := s.StartWindow()
	clock.Tick()
	s.Stop()
	if got := stop(); len(got) != 1 {
		t.Errorf("window open across Stop returned %d samples, want the 1 taken", len(got))
	}
	if !clock.tickerStopped() || m.shutdowns.Load() != 1 {
		t.Errorf("after Stop: ticker stopped %v, NVML shut down %d times; want true and 1", clock.tickerStopped(), m.shutdowns.Load())
	}
	s.Stop() // idempotent
}

// A driver older than R535 lacks nvmlDeviceGetCurrentClocksEventReasons:
// the sampler uses the older ...ThrottleReasons name.
func TestSamplerOldDriverThrottleReasons(t *testing.T) {
	t.Parallel()
	card, _ := telemetryCard(100, 0x4)
	s, clock := startSampler(t, newMachine([]nvml.Device{card}, "nvmlDeviceGetCurrentClocksEventReasons"))
	stop := s.StartWindow()
	clock.Tick()
	got := stop()
	if len(card.GetCurrentClocksEventReasonsCalls()) != 0 || len(card.GetCurrentClocksThrottleReasonsCalls()) != 1 {
		t.Errorf("event reasons called %d times, throttle reasons %d; want 0 and 1",
			len(card.GetCurrentClocksEventReasonsCalls()), len(card.GetCurrentClocksThrottleReasonsCalls()))
	}
	if len(got) != 1 || !slices.Equal(got[0].Throttle, []string{"power cap"}) {
		t.Errorf("samples %+v, want one with power cap", got)
	}
}

// A card reporting no telemetry gives zero readings, not a crash.
func TestSamplerUnsupportedTelemetry(t *testing.T) {
	t.Parallel()
	s, clock := startSampler(t, newMachine([]nvml.Device{consumerCard()}))
	stop := s.StartWindow()
	clock.Tick()
	got := stop()
	if len(got) != 1 || got[0].PowerW != 0 || got[0].SMClockMHz != 0 || got[0].VRAMUsedBytes != 1024<<20 {
		t.Errorf("samples %+v, want one with zero power and clocks but VRAM read", got)
	}
}

func TestSamplerStartFailures(t *testing.T) {
	t.Parallel()
	missing := newMachine(nil)
	missing.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
	release := make(chan struct{})
	defer close(release)
	hanging := newMachine([]nvml.Device{consumerCard()})
	hanging.InitFunc = func() nvml.Return { <-release; return nvml.SUCCESS }
	for _, c := range []struct {
		name string
		lib  *machine
		want string
	}{
		{"missing library", missing, "no NVIDIA driver found (libnvidia-ml.so.1)"},
		{"no GPU", newMachine(nil), "no NVIDIA GPU found"},
		{"hanging init", hanging, "did not answer within 20ms"},
	} {
		s := probe.NewSampler(probe.WithNVML(c.lib), probe.WithTimeout(20*time.Millisecond))
		err := s.Start(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Start = %v, want an error containing %q", c.name, err, c.want)
		}
		if got := s.StartWindow()(); got != nil {
			t.Errorf("%s: window after a failed Start = %v, want nil", c.name, got)
		}
	}
}

// energyCounter makes d's n-th energy reading start + n × joules, in the
// mJ NVML reports.
func energyCounter(d *mock.Device, start, joules uint64) {
	var reads atomic.Int32
	d.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) {
		n := uint64(reads.Add(1) - 1)
		return (start + n*joules) * 1000, nvml.SUCCESS
	}
}

func TestSamplerTwoGPUsEnergyPerGPUFromTheCounter(t *testing.T) {
	t.Parallel()
	gpu0, _ := telemetryCard(300, 0)
	gpu1, _ := telemetryCard(200, 0)
	energyCounter(gpu0, 50_000, 280) // 280 J a tick of 1 s: 280 W
	energyCounter(gpu1, 90_000, 190)
	s, clock := startSampler(t, newMachine([]nvml.Device{gpu0, gpu1}))
	stop := s.StartWindow()
	clock.Tick()
	clock.Tick()
	clock.Tick()
	samples := stop()
	if len(samples) != 6 || samples[0].EnergyJ != 50_000 || samples[5].EnergyJ != 90_380 {
		t.Fatalf("samples %+v, want the counters in J", samples)
	}
	st := hardware.Summarize(samples)
	if st.EnergySource != hardware.EnergyFromCounter || math.Abs(st.EnergyMeanW-470) > 1e-9 {
		t.Fatalf("energy %v W from %q, want 280 + 190 W from the counters", st.EnergyMeanW, st.EnergySource)
	}
	if len(st.PerGPU) != 2 || st.PerGPU[0].GPU != 0 || st.PerGPU[1].GPU != 1 ||
		math.Abs(st.PerGPU[0].EnergyMeanW-280) > 1e-9 || math.Abs(st.PerGPU[1].EnergyMeanW-190) > 1e-9 ||
		st.PerGPU[0].PowerMeanW != 310 || st.PerGPU[1].PowerMeanW != 210 {
		t.Errorf("per GPU %+v, want 280 W and 190 W counted, 310 W and 210 W sampled", st.PerGPU)
	}
}

func TestSamplerWithoutCounterCountsPower(t *testing.T) {
	t.Parallel()
	card, _ := telemetryCard(150, 0) // the mock has no energy counter
	s, clock := startSampler(t, newMachine([]nvml.Device{card}))
	stop := s.StartWindow()
	clock.Tick()
	clock.Tick()
	st := hardware.Summarize(stop())
	if st.EnergySource != hardware.EnergyFromPower || st.EnergyMeanW != 155 || st.PerGPU != nil {
		t.Errorf("summary %+v, want 155 W from the power samples, one GPU", *st)
	}
}
