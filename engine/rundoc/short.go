package rundoc

import (
	"fmt"
	"strings"
	"time"
)

// ShortID is the first 8 characters of a run's UUID, as every table,
// prompt, file name and chart label shows a run without a name (the id
// whole when it is shorter, as an imported one may be).
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// ShortDuration is the one wording of a duration, everywhere a person
// reads one: the app's Run and Tune tabs (estimates, ETAs), the terminal's
// progress and sweep lines, the waits a run gives up after, the silences it
// reports. One style, in the units the figures use (a space before the
// unit, as in "4.3 s"), as precise as the size needs and no more:
// "250 ms" below a second (a fast simulator's waits), "4.5 s" below ten
// seconds, "45 s", "3 min 10 s" (or "12 min" on the minute) below an hour,
// then "1 h 05 min" (seconds dropped, where they are noise). Zero and
// negative durations read "0 s".
func ShortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < time.Second-500*time.Microsecond:
		return fmt.Sprintf("%d ms", max(d.Round(time.Millisecond).Milliseconds(), 1))
	case d < 10*time.Second-50*time.Millisecond:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	switch s := int(d / time.Second); {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600 && s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	default:
		m := (s + 30) / 60
		return fmt.Sprintf("%d h %02d min", m/60, m%60)
	}
}

// Text words a start for tables and terminals: the wall time, then vLLM's
// split where its log gave one, "4.3 s (weights 38.4 s, compile 3.8 s
// cached, graphs 14.0 s)". The split is the server's own figures (the
// simulator's are simulated seconds, before its --speed).
func (s Startup) Text() string {
	var parts []string
	if s.WeightsS > 0 {
		parts = append(parts, fmt.Sprintf("weights %.1f s", s.WeightsS))
	}
	if s.CompileS > 0 || s.CompileCacheHit {
		c := fmt.Sprintf("compile %.1f s", s.CompileS)
		if s.CompileCacheHit {
			c += " cached"
		}
		parts = append(parts, c)
	}
	if s.GraphCaptureS > 0 {
		parts = append(parts, fmt.Sprintf("graphs %.1f s", s.GraphCaptureS))
	}
	t := fmt.Sprintf("%.1f s", s.LoadS)
	if len(parts) > 0 {
		t += " (" + strings.Join(parts, ", ") + ")"
	}
	return t
}
