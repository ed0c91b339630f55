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

// ShortDuration is a duration as the terminal and the Tune view write an
// ETA or a run time: "45s", "3m10s", "1h05m" (seconds dropped from an
// hour up, where they are noise).
func ShortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return d.String()
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
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
