//go:build linux && cgo

package probe_test

import (
	"errors"
	"sync/atomic"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// h100Machine is go-nvml's DGX H100 mock with the facts its devices do not
// model filled in from the H100 SXM5 data sheet: 700 W, PCIe gen 5 x16,
// a 5120-bit HBM3 bus at 2619 MHz.
func h100Machine(n int) *server.Server {
	s := dgxh100.NewWithGPUs(gpus.Multiple(n, gpus.H100_SXM5_80GB)...)
	for _, d := range s.Devices {
		dev := d.(*server.Device)
		dev.GetPowerManagementLimitFunc = func() (uint32, nvml.Return) { return 700_000, nvml.SUCCESS }
		dev.GetPowerManagementDefaultLimitFunc = func() (uint32, nvml.Return) { return 700_000, nvml.SUCCESS }
		dev.GetPowerManagementLimitConstraintsFunc = func() (uint32, uint32, nvml.Return) { return 200_000, 700_000, nvml.SUCCESS }
		dev.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return 5, nvml.SUCCESS }
		dev.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return 5, nvml.SUCCESS }
		dev.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, nvml.SUCCESS }
		dev.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, nvml.SUCCESS }
		dev.GetMemoryBusWidthFunc = func() (uint32, nvml.Return) { return 5120, nvml.SUCCESS }
		dev.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c == nvml.CLOCK_MEM {
				return 2619, nvml.SUCCESS
			}
			return 1980, nvml.SUCCESS
		}
	}
	return s
}

func notSupported32() (uint32, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }

// consumerCard is a hand-made GeForce RTX 3060 12 GB as NVML shows it under
// WSL: power limits and the current PCIe width answer ERROR_NOT_SUPPORTED.
func consumerCard() *mock.Device {
	return &mock.Device{
		GetNameFunc: func() (string, nvml.Return) { return "NVIDIA GeForce RTX 3060", nvml.SUCCESS },
		GetUUIDFunc: func() (string, nvml.Return) { return "GPU-3060", nvml.SUCCESS },
		GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: 12288 << 20, Used: 1024 << 20, Free: 11264 << 20}, nvml.SUCCESS
		},
		GetCudaComputeCapabilityFunc:           func() (int, int, nvml.Return) { return 8, 6, nvml.SUCCESS },
		GetPowerManagementLimitFunc:            notSupported32,
		GetPowerManagementDefaultLimitFunc:     notSupported32,
		GetPowerManagementLimitConstraintsFunc: func() (uint32, uint32, nvml.Return) { return 0, 0, nvml.ERROR_NOT_SUPPORTED },
		GetCurrPcieLinkGenerationFunc:          func() (int, nvml.Return) { return 4, nvml.SUCCESS },
		GetMaxPcieLinkGenerationFunc:           func() (int, nvml.Return) { return 4, nvml.SUCCESS },
		GetCurrPcieLinkWidthFunc:               func() (int, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED },
		GetMaxPcieLinkWidthFunc:                func() (int, nvml.Return) { return 16, nvml.SUCCESS },
		GetMemoryBusWidthFunc:                  func() (uint32, nvml.Return) { return 192, nvml.SUCCESS },
		GetMaxClockInfoFunc:                    func(nvml.ClockType) (uint32, nvml.Return) { return 7501, nvml.SUCCESS },
	}
}

// machine is a hand-made NVML with the given devices; missing lists
// library symbols the "driver" lacks. It counts Init and Shutdown calls.
type machine struct {
	mock.Interface
	inits, shutdowns atomic.Int32
}

func newMachine(devs []nvml.Device, missing ...string) *machine {
	m := &machine{}
	ext := &mock.ExtendedInterface{LookupSymbolFunc: func(name string) error {
		for _, s := range missing {
			if s == name {
				return errors.New("undefined symbol " + name)
			}
		}
		return nil
	}}
	m.InitFunc = func() nvml.Return { m.inits.Add(1); return nvml.SUCCESS }
	m.ShutdownFunc = func() nvml.Return { m.shutdowns.Add(1); return nvml.SUCCESS }
	m.ExtensionsFunc = func() nvml.ExtendedInterface { return ext }
	m.SystemGetDriverVersionFunc = func() (string, nvml.Return) { return "550.54.14", nvml.SUCCESS }
	m.SystemGetCudaDriverVersionFunc = func() (int, nvml.Return) { return 12040, nvml.SUCCESS }
	m.DeviceGetCountFunc = func() (int, nvml.Return) { return len(devs), nvml.SUCCESS }
	m.DeviceGetHandleByIndexFunc = func(i int) (nvml.Device, nvml.Return) {
		if i < 0 || i >= len(devs) {
			return nil, nvml.ERROR_INVALID_ARGUMENT
		}
		if devs[i] == nil {
			return nil, nvml.ERROR_GPU_IS_LOST
		}
		return devs[i], nvml.SUCCESS
	}
	return m
}
