package bench

import (
	"math"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// A two-GPU window: the cell's J/token is both cards' counted energy, and
// each card's share is its own energy over the server's tokens.
func TestDecodeEnergyPerGPU(t *testing.T) {
	gpu := []hardware.GPUSample{
		{T: 0, GPU: 0, PowerW: 300, EnergyJ: 1000}, {T: 0, GPU: 1, PowerW: 200, EnergyJ: 2000},
		{T: 2, GPU: 0, PowerW: 300, EnergyJ: 1560}, {T: 2, GPU: 1, PowerW: 200, EnergyJ: 2400},
	}
	c := &rundoc.Cell{Phase: rundoc.PhaseDecode, OutputTokens: 1000}
	deriveServer(c, rundoc.Server{}, nil, nil, gpu, 10) // a 10 s window
	// 280 W + 200 W counted, × 10 s / 1000 tokens.
	if math.Abs(c.EnergyJPerToken-4.8) > 1e-9 || c.GPUStats.EnergySource != hardware.EnergyFromCounter {
		t.Fatalf("J/token %v from %q, want 4.8 from the counters", c.EnergyJPerToken, c.GPUStats.EnergySource)
	}
	p := c.GPUStats.PerGPU
	if len(p) != 2 || math.Abs(p[0].EnergyJPerToken-2.8) > 1e-9 || math.Abs(p[1].EnergyJPerToken-2) > 1e-9 {
		t.Errorf("per GPU %+v, want 2.8 and 2 J/token", p)
	}
}
