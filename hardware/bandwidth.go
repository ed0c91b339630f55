package hardware

// PeakBandwidthGBs derives a card's peak memory bandwidth in GB/s (10⁹
// bytes per second) from NVML's memory bus width and maximum memory clock:
//
//	GB/s = bus width bits / 8 × max memory clock MHz × 2 / 1000
//
// bits/8 is the bytes moved per transfer across the whole bus; MHz × 2 is
// millions of transfers per second, since the memory moves data on both
// clock edges (DDR); /1000 turns MB/s into GB/s.
//
// No further data-rate multiplier is applied for GDDR6X, GDDR7 or HBM:
// NVML reports the memory clock already scaled so that clock × 2 is the
// effective per-pin data rate. Checked against published figures:
//
//	RTX 3060  GDDR6   192 bit,  7501 MHz →  360 GB/s (spec 360)
//	RTX 3090  GDDR6X  384 bit,  9751 MHz →  936 GB/s (spec 936)
//	RTX 4090  GDDR6X  384 bit, 10501 MHz → 1008 GB/s (spec 1008)
//	A100 40GB HBM2   5120 bit,  1215 MHz → 1555 GB/s (spec 1555)
//	H100 SXM5 HBM3   5120 bit,  2619 MHz → 3352 GB/s (spec 3350)
//
// It returns 0 when either input is unknown (≤ 0).
func PeakBandwidthGBs(busWidthBits, maxMemClockMHz int) float64 {
	if busWidthBits <= 0 || maxMemClockMHz <= 0 {
		return 0
	}
	const transfersPerClock = 2 // DDR: both clock edges
	return float64(busWidthBits) / 8 * float64(maxMemClockMHz) * transfersPerClock / 1000
}
