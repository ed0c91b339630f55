//go:build linux && cgo

package probe

import (
	"fmt"
	"github.com/rigbench/rigbench/hardware"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// detectGPUs initialises NVML, reads every GPU and shuts NVML down. It may
// block (a broken driver); Detect runs it on its own goroutine.
func detectGPUs(o options) gpuResult {
	lib := o.nvml()
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return gpuResult{reason: initReason(ret)}
	}
	defer lib.Shutdown()

	var r gpuResult
	if v, ok := get(lib.SystemGetDriverVersion); ok {
		r.driverVersion = v
	}
	if v, ok := get(lib.SystemGetCudaDriverVersion); ok {
		r.cudaDriverVersion = formatCUDAVersion(v)
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		r.reason = fmt.Sprintf("the NVIDIA driver could not count the GPUs (%s); check that nvidia-smi works", ret.Error())
		return r
	}
	if n == 0 {
		r.reason = "no NVIDIA GPU found; check that nvidia-smi lists your card"
		return r
	}
	var lost []string
	busWidthOK := hasSymbol(lib, "nvmlDeviceGetMemoryBusWidth")
	devs := map[int]nvml.Device{}
	for i := range n {
		dev, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS || dev == nil {
			lost = append(lost, fmt.Sprintf("GPU %d (%s)", i, ret.Error()))
			continue
		}
		devs[i] = dev
		r.gpus = append(r.gpus, readGPU(i, dev, busWidthOK))
	}
	r.topology = readTopology(r.gpus, devs)
	if len(lost) > 0 {
		r.reason = "could not read " + strings.Join(lost, ", ") + "; check that nvidia-smi lists every card"
	}
	return r
}

// initReason says in one sentence why nvmlInit failed.
func initReason(ret nvml.Return) string {
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return "no NVIDIA driver found (libnvidia-ml.so.1)"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return "the NVIDIA driver is installed but not loaded; reboot or load the nvidia kernel module"
	case nvml.ERROR_NO_PERMISSION:
		return "no permission to query the NVIDIA driver; check the permissions of /dev/nvidia*"
	default:
		return fmt.Sprintf("the NVIDIA driver failed to start (%s); check that nvidia-smi works", ret.Error())
	}
}

// readGPU reads one card's facts. A field the card does not report stays
// zero and is named in Unsupported. NVML reports power in milliwatts.
func readGPU(index int, dev nvmlDevice, busWidthOK bool) hardware.GPU {
	g := hardware.GPU{Index: index}
	miss := func(fields ...string) { g.Unsupported = append(g.Unsupported, fields...) }

	if v, ok := get(dev.GetName); ok {
		g.Name = v
	} else {
		miss(hardware.FieldName)
	}
	if v, ok := get(dev.GetUUID); ok {
		g.UUID = v
	} else {
		miss(hardware.FieldUUID)
	}
	if m, ok := get(dev.GetMemoryInfo); ok {
		g.VRAMTotalBytes, g.VRAMUsedBytes, g.VRAMFreeBytes = m.Total, m.Used, m.Free
	} else {
		miss(hardware.FieldVRAM, hardware.FieldVRAMUsed, hardware.FieldVRAMFree)
	}
	if cc, ok := get(func() ([2]int, nvml.Return) {
		major, minor, ret := dev.GetCudaComputeCapability()
		return [2]int{major, minor}, ret
	}); ok {
		g.ComputeCapability = fmt.Sprintf("%d.%d", cc[0], cc[1])
	} else {
		miss(hardware.FieldComputeCapability)
	}
	if mw, ok := get(dev.GetPowerManagementLimit); ok {
		g.PowerLimitW = milliwatts(mw)
	} else {
		miss(hardware.FieldPowerLimit)
	}
	if mw, ok := get(dev.GetPowerManagementDefaultLimit); ok {
		g.PowerLimitDefaultW = milliwatts(mw)
	} else {
		miss(hardware.FieldPowerLimitDefault)
	}
	if mw, ok := get(func() (uint32, nvml.Return) {
		_, maxMW, ret := dev.GetPowerManagementLimitConstraints()
		return maxMW, ret
	}); ok {
		g.PowerLimitMaxW = milliwatts(mw)
	} else {
		miss(hardware.FieldPowerLimitMax)
	}
	readPCIe(&g, dev, miss)
	readMemoryBus(&g, dev, busWidthOK, miss)
	return g
}

// readPCIe reads the current and maximum link generation and width. The
// current link drops to gen 1 at idle on most cards; the maximum is what
// the slot and card can do together.
func readPCIe(g *hardware.GPU, dev nvmlDevice, miss func(...string)) {
	for _, f := range []struct {
		dst   *int
		read  func() (int, nvml.Return)
		field string
	}{
		{&g.PCIeGen, dev.GetCurrPcieLinkGeneration, hardware.FieldPCIeGen},
		{&g.PCIeGenMax, dev.GetMaxPcieLinkGeneration, hardware.FieldPCIeGenMax},
		{&g.PCIeWidth, dev.GetCurrPcieLinkWidth, hardware.FieldPCIeWidth},
		{&g.PCIeWidthMax, dev.GetMaxPcieLinkWidth, hardware.FieldPCIeWidthMax},
	} {
		if v, ok := get(f.read); ok {
			*f.dst = v
		} else {
			miss(f.field)
		}
	}
}

// readMemoryBus reads the bus width and maximum memory clock and derives
// the peak bandwidth from them (PeakBandwidthGBs).
func readMemoryBus(g *hardware.GPU, dev nvmlDevice, busWidthOK bool, miss func(...string)) {
	if busWidthOK {
		if v, ok := get(dev.GetMemoryBusWidth); ok {
			g.MemoryBusWidthBits = int(v)
		}
	}
	if g.MemoryBusWidthBits == 0 {
		miss(hardware.FieldMemoryBusWidth)
	}
	if v, ok := get(func() (uint32, nvml.Return) { return dev.GetMaxClockInfo(nvml.CLOCK_MEM) }); ok {
		g.MemoryClockMaxMHz = int(v)
	} else {
		miss(hardware.FieldMemoryClockMax)
	}
	g.MemoryBandwidthGBs = hardware.PeakBandwidthGBs(g.MemoryBusWidthBits, g.MemoryClockMaxMHz)
	if g.MemoryBandwidthGBs == 0 {
		miss(hardware.FieldMemoryBandwidth)
	}
}

func milliwatts(mw uint32) float64 { return float64(mw) / 1000 }

// nvmlLevels maps NVML's topology levels to paths (nvidia-smi topo -m
// prints the same levels as PIX, PXB, PHB, NODE and SYS).
var nvmlLevels = map[nvml.GpuTopologyLevel][2]string{
	nvml.TOPOLOGY_INTERNAL:   {hardware.PathSameBoard, ""},
	nvml.TOPOLOGY_SINGLE:     {hardware.PathPCIeSwitch, "PIX"},
	nvml.TOPOLOGY_MULTIPLE:   {hardware.PathPCIeSwitches, "PXB"},
	nvml.TOPOLOGY_HOSTBRIDGE: {hardware.PathHostBridge, "PHB"},
	nvml.TOPOLOGY_NODE:       {hardware.PathNUMANode, "NODE"},
	nvml.TOPOLOGY_SYSTEM:     {hardware.PathSystem, "SYS"},
}

// nvmlP2P maps NVML's P2P statuses to words (nvidia-smi topo -p2p's).
var nvmlP2P = map[nvml.GpuP2PStatus]string{
	nvml.P2P_STATUS_OK:                         "OK",
	nvml.P2P_STATUS_CHIPSET_NOT_SUPPORTED:      "CNS",
	nvml.P2P_STATUS_GPU_NOT_SUPPORTED:          "GNS",
	nvml.P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED: "TNS",
	nvml.P2P_STATUS_NOT_SUPPORTED:              "NS",
	nvml.P2P_STATUS_DISABLED_BY_REGKEY:         "NS",
	nvml.P2P_STATUS_UNKNOWN:                    "U",
}

// readTopology links every pair of the GPUs read: an NVLink when the
// pair's NVLink P2P status is OK (NVML's common-ancestor level says only
// where their PCIe paths meet), else the PCIe level; P2P is the pair's
// peer-to-peer read status. A pair whose level NVML does not answer
// (ERROR_NOT_SUPPORTED under WSL, a mock) is left out.
func readTopology(gpus []hardware.GPU, devs map[int]nvml.Device) []hardware.GPULink {
	var links []hardware.GPULink
	for i, a := range gpus {
		for _, b := range gpus[i+1:] {
			da, db := devs[a.Index], devs[b.Index]
			if da == nil || db == nil {
				continue
			}
			l := hardware.GPULink{A: a.Index, B: b.Index}
			if st, ok := get(func() (nvml.GpuP2PStatus, nvml.Return) { return da.GetP2PStatus(db, nvml.P2P_CAPS_INDEX_NVLINK) }); ok && st == nvml.P2P_STATUS_OK {
				l.Path = hardware.PathNVLink // NVML does not name the link count as nvidia-smi does
			} else if lv, ok := get(func() (nvml.GpuTopologyLevel, nvml.Return) { return da.GetTopologyCommonAncestor(db) }); ok {
				p, known := nvmlLevels[lv]
				if !known {
					p = [2]string{hardware.PathUnknown, ""}
				}
				l.Path, l.Code = p[0], p[1]
			} else {
				continue
			}
			if st, ok := get(func() (nvml.GpuP2PStatus, nvml.Return) { return da.GetP2PStatus(db, nvml.P2P_CAPS_INDEX_READ) }); ok {
				l.P2P = hardware.P2PText(nvmlP2P[st])
			}
			links = append(links, l)
		}
	}
	return links
}
