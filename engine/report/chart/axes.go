package chart

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// log2Range pads [lo, hi] by a quarter octave each side so end markers are
// not cut by the frame; a single value gets half an octave.
func log2Range(lo, hi float64) (float64, float64) {
	if lo == hi {
		return lo / math.Sqrt2, hi * math.Sqrt2
	}
	f := math.Pow(2, 0.25)
	return lo / f, hi * f
}

// powerOfTwoTicks labels every power of two in [lo, hi] (concurrency levels
// are powers of two in the default plan), and values in between that the
// data holds. With more than ten, every other label is left blank.
func powerOfTwoTicks(lo, hi float64, values []float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	seen := map[float64]bool{}
	for v := 1.0; v <= hi; v *= 2 {
		if v >= lo {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
			seen[v] = true
		}
	}
	for _, v := range values {
		if !seen[v] {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
			seen[v] = true
		}
	}
	if len(ticks) > 10 {
		for i := 1; i < len(ticks); i += 2 {
			ticks[i].Label = ""
		}
	}
	return ticks
}

// contextTicks labels each context the data holds as METHOD.md does (16K).
func contextTicks(values []float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for _, v := range values {
		ticks = append(ticks, plot.Tick{Value: v, Label: rundoc.ContextLabel(int(v))})
	}
	return ticks
}

// niceStep picks the tick spacing for a linear axis from 0 to max: the
// smallest of 1, 2, 2.5 and 5 × 10^k that gives at most six intervals.
func niceStep(max float64) float64 {
	if !(max > 0) {
		return 1
	}
	raw := max / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// linearAxis returns the axis top and its ticks for data in [0, max]: the
// top is the first tick at or above 105% of max, so the highest point
// never touches the frame.
func linearAxis(max float64) (top float64, ticks plot.ConstantTicks) {
	step := niceStep(max * 1.05)
	n := int(math.Ceil(max * 1.05 / step))
	if n < 1 {
		n = 1
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
		if math.Abs(step*math.Pow(10, float64(dec))-math.Round(step*math.Pow(10, float64(dec)))) > 1e-9 {
			dec++ // 0.25
		}
	} else if step != math.Trunc(step) {
		dec = 1 // 2.5
	}
	for i := 0; i <= n; i++ {
		v := float64(i) * step
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%.*f", dec, v)})
	}
	return float64(n) * step, ticks
}

// log10Axis pads [lo, hi] by 30% and ticks 1, 2 and 5 × 10^k, for figures
// that span decades (TTFT).
func log10Axis(lo, hi float64) (min, max float64, ticks plot.ConstantTicks) {
	min, max = lo/1.3, hi*1.3
	for k := math.Floor(math.Log10(min)); k <= math.Ceil(math.Log10(max)); k++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, k)
			if v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
			}
		}
	}
	return min, max, ticks
}
