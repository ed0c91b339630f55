package runview

import "time"

// FormatDuration prints a duration the way the view shows estimates and
// ETAs: "45 s", "12 min", "1 h 05 min".
func FormatDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 90:
		return itoa(s) + " s"
	case s < 3600:
		return itoa((s+30)/60) + " min"
	default:
		m := (s + 30) / 60
		mm := m % 60
		pad := ""
		if mm < 10 {
			pad = "0"
		}
		return itoa(m/60) + " h " + pad + itoa(mm) + " min"
	}
}
