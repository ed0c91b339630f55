package bench

import (
	"testing"
	"time"
)

// A perfectly regular stream (a simulator's one stream at a constant step)
// gives spans of exactly equal rates, so the computed ± is 0; the figure
// still carries a ±, its resolution 0.01, since 0 in the run document
// means "not known" and a Valid figure shows its evidence (a busy CI read
// "16K×1: Valid without a ± on total tok/s"). A window too short for five
// spans keeps 0: not known.
func TestRegularStreamKeepsAResolutionHalfWidth(t *testing.T) {
	const step = 22 // bins (ms) between tokens: 45.5 tok/s
	window := 15 * time.Second
	tl := newTally(window, window, 1)
	tl.firstToken[0] = 0
	for k := 0; k < len(tl.bins); k += step {
		tl.bins[k]++
		tl.usage++
	}
	if h, known := rateCI(tl.bins); !known || h > 1e-9 {
		t.Fatalf("regular bins: rateCI %v (known %v), want a computed 0", h, known)
	}
	rate, half := tl.total(window.Seconds())
	if rate < 45 || rate > 46 || half != minHalf {
		t.Errorf("regular stream: %.1f ± %.2f tok/s, want about 45.5 ± %.2f", rate, half, minHalf)
	}

	short := newTally(3*time.Millisecond, window, 1)
	short.firstToken[0] = 0
	short.bins[0], short.bins[2], short.usage = 1, 1, 2
	if _, half := short.total(window.Seconds()); half != 0 {
		t.Errorf("two tokens: ± %.2f, want 0 (not known)", half)
	}
}
