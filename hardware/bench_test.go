package hardware_test

import (
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

// BenchmarkSummarize: one cell of a two-card server, 60 s window at 1 s.
func BenchmarkSummarize(b *testing.B) {
	var samples []hardware.GPUSample
	for t := 1; t <= 60; t++ {
		for g := range 2 {
			samples = append(samples, hardware.GPUSample{T: float64(t), GPU: g, PowerW: 300, SMClockMHz: 1800, TempC: 70, Throttle: []string{"power cap"}})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if hardware.Summarize(samples) == nil {
			b.Fatal("nil stats")
		}
	}
}
