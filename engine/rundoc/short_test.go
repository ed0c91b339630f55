package rundoc

import (
	"testing"
	"time"
)

func TestShortIDAndDuration(t *testing.T) {
	if got := ShortID("0123456789abcdef"); got != "01234567" {
		t.Errorf("ShortID = %q", got)
	}
	if got := ShortID("abc"); got != "abc" {
		t.Errorf("ShortID of a short id = %q", got)
	}
	for d, want := range map[time.Duration]string{
		45*time.Second + 400*time.Millisecond:      "45s",
		3*time.Minute + 10*time.Second:             "3m10s",
		time.Hour + 5*time.Minute + 59*time.Second: "1h05m",
		26 * time.Hour: "26h00m",
	} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestRunTitle(t *testing.T) {
	for _, tc := range []struct {
		r    Run
		want string
	}{
		{Run{Name: "mine", Server: Server{Model: "m"}}, "mine"},
		{Run{Server: Server{Model: "org/m"}}, "org/m"},
		{Run{Launch: &Launch{Model: "org/l"}}, "org/l"},
		{Run{UUID: "0123456789abcdef"}, "run 01234567"},
		{Run{}, "run"},
	} {
		if got := tc.r.Title(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r, got, tc.want)
		}
	}
}

// A start is its wall time, then whatever split vLLM's log gave.
func TestStartupText(t *testing.T) {
	for _, tc := range []struct {
		s    Startup
		want string
	}{
		{Startup{LoadS: 93.62, WeightsS: 38.4, CompileS: 41.2, GraphCaptureS: 14}, "93.6 s (weights 38.4 s, compile 41.2 s, graphs 14.0 s)"},
		{Startup{LoadS: 4.25, WeightsS: 38.4, CompileS: 3.8, GraphCaptureS: 14, CompileCacheHit: true}, "4.2 s (weights 38.4 s, compile 3.8 s cached, graphs 14.0 s)"},
		{Startup{LoadS: 12, WeightsS: 9.5}, "12.0 s (weights 9.5 s)"},
		{Startup{LoadS: 2}, "2.0 s"},
	} {
		if got := tc.s.Text(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}
