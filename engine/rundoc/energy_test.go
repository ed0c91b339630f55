package rundoc

import (
	"reflect"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

// A run says where its energy comes from once when every cell agrees,
// per cell when they differ, and splits a two-GPU cell by GPU; cells
// without energy (prefill, failed, no telemetry) say nothing.
func TestEnergyLines(t *testing.T) {
	two := func(src string) *hardware.GPUStats {
		return &hardware.GPUStats{EnergySource: src, PerGPU: []hardware.GPUPower{
			{GPU: 0, PowerMeanW: 151.24, TempMaxC: 68, EnergyJPerToken: 0.2071},
			{GPU: 1, PowerMeanW: 149.8, EnergyJPerToken: 0.2049},
		}}
	}
	r := &Run{Cells: []Cell{
		{Phase: PhaseDecode, Context: 16384, Concurrency: 2, Status: StatusValid, EnergyJPerToken: 0.9,
			GPUStats: &hardware.GPUStats{EnergySource: hardware.EnergyFromCounter}},
		{Phase: PhaseDecode, Context: 0, Concurrency: 8, Status: StatusValid, EnergyJPerToken: 0.412, GPUStats: two(hardware.EnergyFromCounter)},
		{Phase: PhaseDecode, Context: 0, Concurrency: 16, Status: StatusFailed, EnergyJPerToken: 0.3, GPUStats: two(hardware.EnergyFromCounter)},
		{Phase: PhasePrefill, Context: 8192, Concurrency: 1, Status: StatusValid},
		{Phase: PhaseDecode, Context: 0, Concurrency: 1, Status: StatusValid},
	}}
	want := []string{
		"Energy per token from the cards' energy counters in every decode cell.",
		"0×8: 0.412 J/token on 2 GPUs: GPU 0 0.207 J/token, 151 W mean, 68 °C max; GPU 1 0.205 J/token, 150 W mean",
	}
	if got := EnergyLines(r); !reflect.DeepEqual(got, want) {
		t.Errorf("lines\n%q\nwant\n%q", got, want)
	}
	r.Cells[0].GPUStats.EnergySource = hardware.EnergyFromPower
	want[0] = "Energy per token from the cards' energy counters in 0×8; the power samples (a card without an energy counter) in 16K×2."
	if got := EnergyLines(r); !reflect.DeepEqual(got, want) {
		t.Errorf("mixed sources\n%q\nwant\n%q", got, want)
	}
	// A cluster run names each GPU's rig.
	r.Launch = &Launch{Cluster: &Cluster{Rigs: []string{"ssh://a", "ssh://b"}, TP: 1, PP: 2, GPUs: []int{1, 1}}}
	want[1] = "0×8: 0.412 J/token on 2 GPUs: GPU 0 on ssh://a 0.207 J/token, 151 W mean, 68 °C max; GPU 1 on ssh://b 0.205 J/token, 150 W mean"
	if got := EnergyLines(r); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster\n%q\nwant\n%q", got, want)
	}
	if got := EnergyLines(&Run{Cells: []Cell{{Phase: PhaseDecode, Status: StatusValid, Concurrency: 1}}}); got != nil {
		t.Errorf("a run without energy: %q", got)
	}
}
