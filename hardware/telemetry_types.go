package hardware

// GPUSample is one NVML telemetry reading of one GPU during a window.
type GPUSample struct {
	T             float64 `json:"t"`
	GPU           int     `json:"gpu"`
	PowerW        float64 `json:"power_w"`
	SMClockMHz    float64 `json:"sm_clock_mhz"`
	MemClockMHz   float64 `json:"mem_clock_mhz"`
	TempC         float64 `json:"temp_c"`
	UtilGPU       float64 `json:"util_gpu"` // percent
	UtilMem       float64 `json:"util_mem"` // percent
	VRAMUsedBytes uint64  `json:"vram_used_bytes"`
	// Throttle names active throttle reasons ("power cap", "thermal", …).
	Throttle []string `json:"throttle,omitempty"`
}

// GPUStats summarises telemetry over a window. Power is summed over GPUs
// at each sample time before the mean and max are taken, so a two-card
// server reports the power of both.
type GPUStats struct {
	Samples         int      `json:"samples"`
	PowerMeanW      float64  `json:"power_mean_w"`
	PowerMaxW       float64  `json:"power_max_w"`
	SMClockMeanMHz  float64  `json:"sm_clock_mean_mhz"`
	SMClockMaxMHz   float64  `json:"sm_clock_max_mhz"`
	MemClockMeanMHz float64  `json:"mem_clock_mean_mhz"`
	TempMeanC       float64  `json:"temp_mean_c"`
	TempMaxC        float64  `json:"temp_max_c"`
	UtilGPUMean     float64  `json:"util_gpu_mean"`
	UtilMemMean     float64  `json:"util_mem_mean"`
	VRAMUsedMax     uint64   `json:"vram_used_max_bytes"`
	Throttled       []string `json:"throttled,omitempty"`
}
