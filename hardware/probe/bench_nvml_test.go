//go:build linux && cgo

package probe_test

import (
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/rigbench/rigbench/hardware/probe"
)

// BenchmarkSamplerTick: one tick of an open window on two mock GPUs (the
// work the sampler adds per interval, NVML's own cost aside).
func BenchmarkSamplerTick(b *testing.B) {
	gpu0, _ := telemetryCard(300, 0x4)
	gpu1, _ := telemetryCard(200, 0)
	clock := newFakeClock()
	s := probe.NewSampler(probe.WithNVML(newMachine([]nvml.Device{gpu0, gpu1})), probe.WithClock(clock))
	if err := s.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	b.ReportAllocs()
	for b.Loop() {
		stop := s.StartWindow()
		clock.Tick()
		if len(stop()) != 2 {
			b.Fatal("want 2 samples")
		}
	}
}
