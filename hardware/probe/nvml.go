//go:build linux && cgo

package probe

import (
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// NVML is the part of go-nvml's nvml.Interface that RigBench calls. The
// system library (nvml.New()), go-nvml's mock machines (mock/dgxh100, …)
// and a hand-made *mock.Interface all satisfy it. Device queries go
// through the nvml.Device handles it returns (see nvmlDevice).
type NVML interface {
	Init() nvml.Return
	Shutdown() nvml.Return
	SystemGetDriverVersion() (string, nvml.Return)
	SystemGetCudaDriverVersion() (int, nvml.Return)
	DeviceGetCount() (int, nvml.Return)
	DeviceGetHandleByIndex(int) (nvml.Device, nvml.Return)
	// Extensions gives LookupSymbol, used to skip functions an older
	// driver's libnvidia-ml lacks (calling one would abort the process).
	Extensions() nvml.ExtendedInterface
}

// nvmlDevice lists the nvml.Device methods RigBench calls, so the surface
// a test mock must answer is visible in one place.
type nvmlDevice interface {
	GetName() (string, nvml.Return)
	GetUUID() (string, nvml.Return)
	GetMemoryInfo() (nvml.Memory, nvml.Return)
	GetCudaComputeCapability() (int, int, nvml.Return)
	GetPowerManagementLimit() (uint32, nvml.Return)
	GetPowerManagementDefaultLimit() (uint32, nvml.Return)
	GetPowerManagementLimitConstraints() (uint32, uint32, nvml.Return)
	GetCurrPcieLinkGeneration() (int, nvml.Return)
	GetMaxPcieLinkGeneration() (int, nvml.Return)
	GetCurrPcieLinkWidth() (int, nvml.Return)
	GetMaxPcieLinkWidth() (int, nvml.Return)
	GetMemoryBusWidth() (uint32, nvml.Return)
	GetMaxClockInfo(nvml.ClockType) (uint32, nvml.Return)
	GetPowerUsage() (uint32, nvml.Return)
	GetClockInfo(nvml.ClockType) (uint32, nvml.Return)
	GetTemperature(nvml.TemperatureSensors) (uint32, nvml.Return)
	GetUtilizationRates() (nvml.Utilization, nvml.Return)
	GetCurrentClocksEventReasons() (uint64, nvml.Return)
	GetCurrentClocksThrottleReasons() (uint64, nvml.Return)
	GetTotalEnergyConsumption() (uint64, nvml.Return)
	GetTopologyCommonAncestor(nvml.Device) (nvml.GpuTopologyLevel, nvml.Return)
	GetP2PStatus(nvml.Device, nvml.GpuP2PCapsIndex) (nvml.GpuP2PStatus, nvml.Return)
}

var _ nvmlDevice = nvml.Device(nil)

// WithNVML makes Detect and the sampler use lib instead of the system's
// libnvidia-ml: tests pass go-nvml's mock machines; other packages' tests
// can pass one to get a GPU on a machine without one.
func WithNVML(lib NVML) Option {
	return func(o *options) {
		if lib != nil {
			o.lib = lib
		}
	}
}

// systemNVML is the system library, created once: go-nvml dlopens
// libnvidia-ml.so.1 at Init (RTLD_LAZY|RTLD_GLOBAL) and reference-counts
// Init/Shutdown pairs, so Detect and the sampler can share it.
var systemNVML = sync.OnceValue(func() NVML { return nvml.New() })

func (o options) nvml() NVML {
	if lib, ok := o.lib.(NVML); ok {
		return lib
	}
	return systemNVML()
}

// get reads one NVML value; ok is false when the card does not report it:
// NVML answered an error (ERROR_NOT_SUPPORTED on consumer cards and WSL,
// ERROR_NO_PERMISSION, …) or the binding panicked (go-nvml's mocks do for
// methods a test did not model).
func get[T any](f func() (T, nvml.Return)) (v T, ok bool) {
	defer func() {
		if recover() != nil {
			var zero T
			v, ok = zero, false
		}
	}()
	v, ret := f()
	return v, ret == nvml.SUCCESS
}

// hasSymbol says whether the loaded libnvidia-ml exports name. Functions
// newer than the oldest supported driver are looked up first: with lazy
// binding, calling a missing one aborts the process ("symbol lookup
// error"). A binding that cannot answer (a mock) is taken to have it.
func hasSymbol(lib NVML, name string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = true
		}
	}()
	ext := lib.Extensions()
	if ext == nil {
		return true
	}
	return ext.LookupSymbol(name) == nil
}
