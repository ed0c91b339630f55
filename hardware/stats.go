package hardware

import "math"

// Summarize reduces a window's samples to means and maxima; nil when there
// are no samples.
//
// Samples taken at the same tick share T, one per GPU. Power is summed over
// the GPUs of each tick first, so PowerMeanW and PowerMaxW describe the
// whole machine (a two-card tensor-parallel server draws through both), and
// Samples counts ticks, not readings. Clocks, temperature and utilisation
// are per-card quantities: their means and maxima are over every reading.
// VRAMUsedMax is the fullest single card, the one that runs out first.
// Throttled is the union of the reasons seen, in first-seen order.
func Summarize(samples []GPUSample) *GPUStats {
	if len(samples) == 0 {
		return nil
	}
	st := &GPUStats{}
	// Sum power per tick, keeping ticks in first-seen order.
	tickPower := map[float64]float64{}
	var ticks []float64
	seen := map[string]bool{}
	var smSum, memSum, tempSum, utilGPUSum, utilMemSum float64
	for _, s := range samples {
		if _, ok := tickPower[s.T]; !ok {
			ticks = append(ticks, s.T)
		}
		tickPower[s.T] += s.PowerW
		smSum += s.SMClockMHz
		memSum += s.MemClockMHz
		tempSum += s.TempC
		utilGPUSum += s.UtilGPU
		utilMemSum += s.UtilMem
		st.SMClockMaxMHz = math.Max(st.SMClockMaxMHz, s.SMClockMHz)
		st.TempMaxC = math.Max(st.TempMaxC, s.TempC)
		st.VRAMUsedMax = max(st.VRAMUsedMax, s.VRAMUsedBytes)
		for _, r := range s.Throttle {
			if !seen[r] {
				seen[r] = true
				st.Throttled = append(st.Throttled, r)
			}
		}
	}
	var powerSum float64
	for _, t := range ticks {
		p := tickPower[t]
		powerSum += p
		st.PowerMaxW = math.Max(st.PowerMaxW, p)
	}
	n := float64(len(samples))
	st.Samples = len(ticks)
	st.PowerMeanW = powerSum / float64(len(ticks))
	st.SMClockMeanMHz = smSum / n
	st.MemClockMeanMHz = memSum / n
	st.TempMeanC = tempSum / n
	st.UtilGPUMean = utilGPUSum / n
	st.UtilMemMean = utilMemSum / n
	return st
}

// EnergyPerToken is the energy one output token cost, in joules:
//
//	J/token = mean power W × window s / output tokens
//
// since W × s = J. It is 0 when no token was produced (or the inputs are
// not finite), so a failed cell never shows an infinite cost.
func EnergyPerToken(meanPowerW, windowS float64, tokens int) float64 {
	if tokens <= 0 {
		return 0
	}
	e := meanPowerW * windowS / float64(tokens)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return 0
	}
	return e
}
