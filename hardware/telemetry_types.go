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
	// EnergyJ is the card's energy counter at this reading, in joules
	// since the driver was loaded (NVML's total energy consumption, or
	// nvidia-smi's energy.consumed on a rig); 0 where the card or the
	// driver has none. Only its differences mean anything.
	EnergyJ float64 `json:"energy_j,omitempty"`
}

// Energy sources of GPUStats.EnergySource: where a window's energy comes
// from.
const (
	// EnergyFromCounter: every GPU's energy counter, read at the window's
	// first and last sample (the driver integrates power at its own rate,
	// finer than the samples).
	EnergyFromCounter = "energy counter"
	// EnergyFromPower: the power readings, averaged over the samples (a
	// GPU without a readable counter: older cards, an nvidia-smi without
	// energy.consumed).
	EnergyFromPower = "power samples"
)

// GPUPower is one GPU's share of a window on a server that spans several:
// its power and the mean draw its energy is counted from.
type GPUPower struct {
	GPU        int     `json:"gpu"`
	PowerMeanW float64 `json:"power_mean_w"`
	PowerMaxW  float64 `json:"power_max_w"`
	TempMaxC   float64 `json:"temp_max_c"`
	// EnergyMeanW is ΔE/Δt of its counter, or PowerMeanW (the source is
	// the window's EnergySource).
	EnergyMeanW float64 `json:"energy_mean_w"`
	// EnergyJPerToken is its energy over the window per output token of
	// the whole server (filled by the benchmark, which knows both).
	EnergyJPerToken float64 `json:"energy_j_per_token,omitempty"`
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
	// EnergyMeanW is the machine's mean draw the energy figure is
	// counted from: the sum over GPUs of each counter's ΔE/Δt when every
	// GPU has one (EnergySource EnergyFromCounter), else PowerMeanW.
	EnergyMeanW float64 `json:"energy_mean_w,omitempty"`
	// EnergySource says where EnergyMeanW comes from ("" with no power
	// reading at all).
	EnergySource string `json:"energy_source,omitempty"`
	// PerGPU splits the window by GPU, in index order, when it has more
	// than one.
	PerGPU []GPUPower `json:"per_gpu,omitempty"`
}
