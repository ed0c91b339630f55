package bench

import "time"

// rateEstimate is a decode window's total tok/s and its uncertainty.
type rateEstimate struct {
	// rate is in tokens per second of the card, as a window of the
	// reference length reads it; half is its 95% half-width (0: unknown).
	rate, half float64
	// known is true when half was computed (a steady part of five spans
	// or more, rateCI), even where it is 0: a simulator's perfectly
	// regular stream can give spans of exactly equal rates.
	known bool
}

// relative is the half-width as a share of the rate (1 when unknown).
func (e rateEstimate) relative() float64 {
	if e.rate <= 0 || e.half <= 0 {
		return 1
	}
	return e.half / e.rate
}

// estimateRate derives total tok/s from a window's bins (tokens per
// binWidth of card time, from the window's opening to where it closed) as
// a window of length ref would read it (METHOD.md: Adaptive windows).
//
// Every stream starts at the window's opening and waits a time to first
// token; until the last stream has its first token (settle) the rate
// climbs, afterwards it is steady (with stream restarts, steady in the
// mean). A window of length ref counts the climb's tokens and then ref −
// settle seconds of the steady rate r, so
//
//	rate = (tokens before settle + r · (ref − settle)) / ref.
//
// When the window lasted ref this is exactly its tokens / ref; a shorter
// window measures r over its steady part and so reads what the fixed
// window would, instead of a figure depressed by a larger share of climb.
// The uncertainty is r's (rateCI over the steady part) × (ref − settle) /
// ref: the climb is counted, not estimated. Without a settle point inside
// the window (settled false) there is no steady part: the rate is tokens /
// length and the half-width unknown.
func estimateRate(bins []float64, settle time.Duration, settled bool, ref time.Duration) rateEstimate {
	bw := binWidth.Seconds()
	var total float64
	for _, x := range bins {
		total += x
	}
	d := float64(len(bins)) * bw
	if d <= 0 {
		return rateEstimate{}
	}
	s0 := int((settle + binWidth - 1) / binWidth)
	if !settled || len(bins)-s0 < 3 {
		return rateEstimate{rate: total / d}
	}
	var before float64
	for _, x := range bins[:s0] {
		before += x
	}
	steady := bins[s0:]
	r := (total - before) / (float64(len(steady)) * bw)
	ts, refS := float64(s0)*bw, max(ref.Seconds(), d)
	half, known := rateCI(steady)
	return rateEstimate{
		rate:  (before + r*(refS-ts)) / refS,
		half:  half / bw * (refS - ts) / refS,
		known: known,
	}
}
