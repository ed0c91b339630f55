package rundoc

import (
	"fmt"
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
