package bench

import (
	"testing"
	"time"
)

// Issue 16 item 6: a sped-up demo's progress line gives the window in card
// time, as the plan does, and the real time beside it.
func TestMeasuringMessageInCardTime(t *testing.T) {
	if got, want := measuringMessage(8, 30*time.Second, 20), "measuring 8 stream(s) for 30 s of card time, 1.5 s at 20× speed"; got != want {
		t.Errorf("sped up: %q, want %q", got, want)
	}
	if got, want := measuringMessage(1, 30*time.Second, 1), "measuring 1 stream(s) for 30 s"; got != want {
		t.Errorf("real time: %q, want %q", got, want)
	}
}
