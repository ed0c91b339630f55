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
		0:                      "0 s",
		-time.Second:           "0 s",
		250 * time.Millisecond: "250 ms",
		999*time.Millisecond + 600*time.Microsecond: "1.0 s",
		1500 * time.Millisecond:                     "1.5 s",
		9960 * time.Millisecond:                     "10 s",
		45*time.Second + 400*time.Millisecond:       "45 s",
		59*time.Second + 600*time.Millisecond:       "1 min",
		3*time.Minute + 10*time.Second:              "3 min 10 s",
		12 * time.Minute:                            "12 min",
		time.Hour + 5*time.Minute + 20*time.Second:  "1 h 05 min",
		time.Hour + 5*time.Minute + 59*time.Second:  "1 h 06 min",
		26 * time.Hour:                              "26 h 00 min",
	} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// A token count reads with every digit, grouped, and an unreported one
// (0) as such: one wording of a KV capacity in every view (issue 42 item 6).
func TestTokensText(t *testing.T) {
	for n, want := range map[int]string{494560: "494,560 tokens", 999: "999 tokens", 1000: "1,000 tokens", 1234567: "1,234,567 tokens", 0: NotReported, -1: NotReported} {
		if got := TokensText(n); got != want {
			t.Errorf("TokensText(%d) = %q, want %q", n, got, want)
		}
	}
	if got := GroupDigits(-1234); got != "-1,234" {
		t.Errorf("GroupDigits(-1234) = %q", got)
	}
}

// A cell's name is one spelling, whether from a Cell or from its context
// and concurrency.
func TestCellName(t *testing.T) {
	c := Cell{Phase: PhaseDecode, Context: 16384, Concurrency: 8}
	if c.Name() != "16K×8" || CellName(16384, 8) != c.Name() || c.Label() != "decode 16K×8" || CellName(0, 1) != "0×1" {
		t.Errorf("Name %q, CellName %q, Label %q", c.Name(), CellName(16384, 8), c.Label())
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
