package hardware

import (
	"math"
	"slices"
)

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
	energy(st, samples)
	return st
}

// energy fills st's energy source, the mean draw it counts from, and the
// per-GPU split. A GPU's counter counts when it has two readings at
// different times that do not run backwards (a driver reload resets it):
//
//	W = (E_last − E_first) J / (T_last − T_first) s
//
// The machine's figure uses the counters only when every GPU has one, so
// a sum never mixes counted and sampled cards.
func energy(st *GPUStats, samples []GPUSample) {
	type acc struct {
		n                  int
		powerSum, powerMax float64
		tempMax            float64
		first, last        GPUSample
		counted            bool
	}
	per := map[int]*acc{}
	var order []int
	for _, s := range samples {
		a := per[s.GPU]
		if a == nil {
			a = &acc{first: s}
			per[s.GPU] = a
			order = append(order, s.GPU)
		}
		a.n++
		a.powerSum += s.PowerW
		a.powerMax = math.Max(a.powerMax, s.PowerW)
		a.tempMax = math.Max(a.tempMax, s.TempC)
		if s.T < a.first.T {
			a.first = s
		}
		if s.T >= a.last.T || a.n == 1 {
			a.last = s
		}
	}
	slices.Sort(order)
	counted, sum := true, 0.0
	var shares []GPUPower
	for _, g := range order {
		a := per[g]
		p := GPUPower{GPU: g, PowerMeanW: a.powerSum / float64(a.n), PowerMaxW: a.powerMax, TempMaxC: a.tempMax}
		dt, de := a.last.T-a.first.T, a.last.EnergyJ-a.first.EnergyJ
		if w := de / dt; a.first.EnergyJ > 0 && dt > 0 && de >= 0 && !math.IsInf(w, 0) && !math.IsNaN(w) {
			p.EnergyMeanW = w
		} else {
			counted = false
			p.EnergyMeanW = p.PowerMeanW
		}
		sum += p.EnergyMeanW
		shares = append(shares, p)
	}
	switch {
	case counted && len(shares) > 0:
		st.EnergyMeanW, st.EnergySource = sum, EnergyFromCounter
	case st.PowerMeanW > 0:
		st.EnergyMeanW, st.EnergySource = st.PowerMeanW, EnergyFromPower
		for i := range shares {
			shares[i].EnergyMeanW = shares[i].PowerMeanW
		}
	}
	if len(shares) > 1 {
		st.PerGPU = shares
	}
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
