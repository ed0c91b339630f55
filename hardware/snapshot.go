package hardware

// Snapshot is what RigBench knows about the machine a run was measured on.
// It is plain data: the run document (engine/bench) embeds it, the store
// persists it and the reports print it. It never holds a hostname, a
// username or a path, so it can be shared as is.
type Snapshot struct {
	// GPUs lists every NVIDIA GPU NVML reports, by index. It is empty (not
	// null) when there is no driver or no card.
	GPUs []GPU `json:"gpus"`
	// GPUAbsentReason says in one plain sentence why GPUs is empty, or why
	// detection was partial ("no NVIDIA driver found (libnvidia-ml.so.1)").
	GPUAbsentReason string `json:"gpu_absent_reason,omitempty"`
	// DriverVersion and CUDADriverVersion are machine-wide NVML facts.
	DriverVersion     string `json:"driver_version,omitempty"`
	CUDADriverVersion string `json:"cuda_driver_version,omitempty"`
	CPU               CPU    `json:"cpu"`
	Memory            Memory `json:"memory"`
	OS                OS     `json:"os"`
	// Topology is how each pair of GPUs is linked (NVML locally, nvidia-smi
	// topo on a remote rig); empty with fewer than two GPUs or when it
	// could not be read.
	Topology []GPULink `json:"topology,omitempty"`
}

// GPU describes one card. Fields the card does not report (NVML answers
// ERROR_NOT_SUPPORTED, common on consumer cards and WSL) stay zero and are
// listed in Unsupported, so views print "n/a" rather than a false 0.
type GPU struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	UUID              string `json:"uuid,omitempty"`
	VRAMTotalBytes    uint64 `json:"vram_total_bytes"`
	VRAMUsedBytes     uint64 `json:"vram_used_bytes"`
	VRAMFreeBytes     uint64 `json:"vram_free_bytes"`
	ComputeCapability string `json:"compute_capability,omitempty"`
	// Power limits in watts.
	PowerLimitW        float64 `json:"power_limit_w,omitempty"`
	PowerLimitDefaultW float64 `json:"power_limit_default_w,omitempty"`
	PowerLimitMaxW     float64 `json:"power_limit_max_w,omitempty"`
	PCIeGen            int     `json:"pcie_gen,omitempty"`
	PCIeGenMax         int     `json:"pcie_gen_max,omitempty"`
	PCIeWidth          int     `json:"pcie_width,omitempty"`
	PCIeWidthMax       int     `json:"pcie_width_max,omitempty"`
	MemoryBusWidthBits int     `json:"memory_bus_width_bits,omitempty"`
	MemoryClockMaxMHz  int     `json:"memory_clock_max_mhz,omitempty"`
	// MemoryBandwidthGBs is the peak memory bandwidth in GB/s derived from
	// the bus width and the max memory clock (see bandwidth.go for the maths).
	MemoryBandwidthGBs float64 `json:"memory_bandwidth_gbs,omitempty"`
	// Unsupported names the JSON fields above that this card did not report.
	Unsupported []string `json:"unsupported,omitempty"`
}

// CPU describes the processor. Counts come from gopsutil's cpu.Counts.
type CPU struct {
	Model         string `json:"model"`
	PhysicalCores int    `json:"physical_cores"`
	LogicalCores  int    `json:"logical_cores"`
}

// Memory is system RAM in bytes.
type Memory struct {
	TotalBytes     uint64 `json:"total_bytes"`
	AvailableBytes uint64 `json:"available_bytes"`
}

// OS names the operating system and kernel.
type OS struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Kernel  string `json:"kernel,omitempty"`
	Arch    string `json:"arch,omitempty"`
}
