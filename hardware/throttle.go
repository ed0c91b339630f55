package hardware

// NVML clocks-event ("throttle") reason bits, as defined in nvml.h
// (nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*). The values
// are part of NVML's stable ABI; they are repeated here so the mapping
// builds and is tested without cgo.
const (
	reasonGPUIdle         uint64 = 0x1
	reasonAppClocks       uint64 = 0x2
	reasonSWPowerCap      uint64 = 0x4
	reasonHWSlowdown      uint64 = 0x8
	reasonSyncBoost       uint64 = 0x10
	reasonSWThermal       uint64 = 0x20
	reasonHWThermal       uint64 = 0x40
	reasonHWPowerBrake    uint64 = 0x80
	reasonDisplayClocks   uint64 = 0x100
	reasonAllKnownReasons        = reasonGPUIdle | reasonAppClocks | reasonSWPowerCap | reasonHWSlowdown |
		reasonSyncBoost | reasonSWThermal | reasonHWThermal | reasonHWPowerBrake | reasonDisplayClocks
)

// Throttle reason names, as they appear in GPUSample.Throttle and
// GPUStats.Throttled.
const (
	ThrottlePowerCap    = "power cap"
	ThrottleThermal     = "thermal"
	ThrottleHWSlowdown  = "hw slowdown"
	ThrottlePowerBrake  = "power brake"
	ThrottleSyncBoost   = "sync boost"
	ThrottleAppClocks   = "application clocks"
	ThrottleDisplay     = "display clocks"
	ThrottleUnknownBits = "other"
)

// throttleNames maps bits to names in the order they are reported: the
// reasons that cost throughput first.
var throttleNames = []struct {
	bit  uint64
	name string
}{
	{reasonSWPowerCap, ThrottlePowerCap},
	{reasonSWThermal | reasonHWThermal, ThrottleThermal},
	{reasonHWSlowdown, ThrottleHWSlowdown},
	{reasonHWPowerBrake, ThrottlePowerBrake},
	{reasonSyncBoost, ThrottleSyncBoost},
	{reasonAppClocks, ThrottleAppClocks},
	{reasonDisplayClocks, ThrottleDisplay},
}

// ThrottleReasons names the active reasons in an NVML clocks-event mask.
// "GPU idle" is left out: an idle GPU lowers its clocks because it has no
// work, which is not a limit on a benchmark. Software and hardware thermal
// slowdowns both read "thermal". Bits this version does not know read
// "other". It returns nil when nothing limits the clocks.
func ThrottleReasons(mask uint64) []string {
	var out []string
	for _, n := range throttleNames {
		if mask&n.bit != 0 {
			out = append(out, n.name)
		}
	}
	if mask&^reasonAllKnownReasons != 0 {
		out = append(out, ThrottleUnknownBits)
	}
	return out
}
