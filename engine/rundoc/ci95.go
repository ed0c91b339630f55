package rundoc

import "math"

// CI95 returns the half-width of the 95% confidence interval stored beside
// the figure whose JSON key is key (the field key + "_ci95"), 0 when the
// cell has none. "total_tok_s" of a prefill cell is its prompt tok/s, as in
// the reference CSVs.
func (c *Cell) CI95(key string) float64 {
	switch key {
	case "prompt_tok_s":
		return c.PromptTokSCI95
	case "total_tok_s":
		if c.Phase == PhasePrefill {
			return c.PromptTokSCI95
		}
		return c.TotalTokSCI95
	case "per_request_tok_s":
		return c.PerRequestTokSCI95
	case "ttft_ms":
		return c.TTFTMsCI95
	case "tbt_ms":
		return c.TBTMsCI95
	}
	return 0
}

// Significant reports whether a change from a (± ha) to b (± hb) is larger
// than the two figures' combined uncertainty √(ha² + hb²), the half-width
// of the 95% interval of a difference of independent estimates. Without a
// half-width on either side (0: unknown) nothing can be said against the
// change, so it counts.
func Significant(a, ha, b, hb float64) bool {
	if ha <= 0 && hb <= 0 {
		return true
	}
	return math.Abs(b-a) > math.Hypot(ha, hb)
}

// WindowMethod is the plan's window method, WindowFixed for runs written
// before windows adapted (an empty Window).
func (p Plan) WindowMethod() string {
	if p.Window == "" {
		return WindowFixed
	}
	return p.Window
}
