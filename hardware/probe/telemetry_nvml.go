//go:build linux && cgo

package probe

import (
	"fmt"
	"github.com/rigbench/rigbench/hardware"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// nvmlReaders reads telemetry through an initialised NVML.
type nvmlReaders struct {
	lib  NVML
	devs []nvmlDevice
	// eventReasons: the driver has nvmlDeviceGetCurrentClocksEventReasons
	// (R535+); older ones only have the ...ThrottleReasons name.
	eventReasons bool
}

// openDevices initialises NVML and takes a handle on every GPU.
func openDevices(o options) (gpuReaders, error) {
	lib := o.nvml()
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("cannot sample the GPU: %s", initReason(ret))
	}
	r := &nvmlReaders{lib: lib, eventReasons: hasSymbol(lib, "nvmlDeviceGetCurrentClocksEventReasons")}
	n, ret := lib.DeviceGetCount()
	if ret == nvml.SUCCESS {
		for i := range n {
			if dev, ret := lib.DeviceGetHandleByIndex(i); ret == nvml.SUCCESS && dev != nil {
				r.devs = append(r.devs, dev)
			}
		}
	}
	if len(r.devs) == 0 {
		lib.Shutdown()
		return nil, fmt.Errorf("cannot sample the GPU: no NVIDIA GPU found; check that nvidia-smi lists your card")
	}
	return r, nil
}

func (r *nvmlReaders) close() { r.lib.Shutdown() }

func (r *nvmlReaders) read() []hardware.GPUSample {
	out := make([]hardware.GPUSample, len(r.devs))
	for i, d := range r.devs {
		out[i] = r.readOne(i, d)
	}
	return out
}

// readOne takes one reading of one GPU. A value the card does not report
// stays 0 (a GPU without power readings therefore gives no energy figure:
// EnergyPerToken of 0 W is 0, shown as n/a). NVML reports power in mW,
// utilisation in percent over its last sample period (about 1/6 s to 1 s).
func (r *nvmlReaders) readOne(index int, d nvmlDevice) hardware.GPUSample {
	s := hardware.GPUSample{GPU: index}
	if mw, ok := get(d.GetPowerUsage); ok {
		s.PowerW = milliwatts(mw)
	}
	if v, ok := get(func() (uint32, nvml.Return) { return d.GetClockInfo(nvml.CLOCK_SM) }); ok {
		s.SMClockMHz = float64(v)
	}
	if v, ok := get(func() (uint32, nvml.Return) { return d.GetClockInfo(nvml.CLOCK_MEM) }); ok {
		s.MemClockMHz = float64(v)
	}
	if v, ok := get(func() (uint32, nvml.Return) { return d.GetTemperature(nvml.TEMPERATURE_GPU) }); ok {
		s.TempC = float64(v)
	}
	if u, ok := get(d.GetUtilizationRates); ok {
		s.UtilGPU, s.UtilMem = float64(u.Gpu), float64(u.Memory)
	}
	if m, ok := get(d.GetMemoryInfo); ok {
		s.VRAMUsedBytes = m.Used
	}
	reasons := d.GetCurrentClocksThrottleReasons
	if r.eventReasons {
		reasons = d.GetCurrentClocksEventReasons
	}
	if mask, ok := get(reasons); ok {
		s.Throttle = hardware.ThrottleReasons(mask)
	}
	// The energy counter (Volta and later) is in mJ since the driver was
	// loaded; cards without one answer ERROR_NOT_SUPPORTED and the window
	// counts its energy from the power samples (hardware.Summarize).
	if mj, ok := get(d.GetTotalEnergyConsumption); ok {
		s.EnergyJ = float64(mj) / 1000
	}
	return s
}
