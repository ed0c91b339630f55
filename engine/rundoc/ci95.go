package rundoc

import (
	"math"
	"strconv"
	"strings"
)

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
	return c.burstCI95(key)
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

// CI95 returns the half-width of the 95% interval of f in c, ok false when
// c lacks the figure or its interval (METHOD.md: Uncertainty).
func (f Figure) CI95(c *Cell) (h float64, ok bool) {
	if _, has := f.Value(c); !has {
		return 0, false
	}
	h = c.CI95(f.Key)
	return h, h > 0
}

// FormatCI prints a half-width with the figure's decimals, or with as many
// more (up to three) as it takes not to print a plain zero: ± 0.04 tok/s
// stays 0.04 rather than a misleading 0.0.
func (f Figure) FormatCI(h float64) string {
	for d := f.Decimals; ; d++ {
		s := strconv.FormatFloat(h, 'f', d, 64)
		if strings.Trim(s, "0.") != "" || d >= f.Decimals+3 {
			return s
		}
	}
}

// TextCI is Text with the figure's uncertainty, "890.6 ± 4.2", or Text
// alone when c has no interval for it.
func (f Figure) TextCI(c *Cell) string {
	t := f.Text(c)
	if h, ok := f.CI95(c); ok && t != "" {
		t += " ± " + f.FormatCI(h)
	}
	return t
}

// WithUnitCI is WithUnit with the uncertainty: "890.6 ± 4.2 tok/s".
func (f Figure) WithUnitCI(c *Cell) string {
	t := f.TextCI(c)
	if t == "" || f.Unit == "" {
		return t
	}
	return t + " " + f.Unit
}

// ciFigure is the column of f's half-width: key f.Key + "_ci95" as in the
// run document, one decimal more than f.
func ciFigure(f Figure) Figure {
	return Figure{Key: f.Key + "_ci95", Label: f.Label + " ±95%", Title: "± " + f.Title, Unit: f.Unit,
		Decimals: f.Decimals + 1, Phase: f.Phase, Optional: true,
		value: func(c *Cell) float64 { h, _ := f.CI95(c); return h }}
}

// CIFigures are the half-width columns a measurements CSV adds after
// CSVFigures when some cell has them (a run measured before RigBench
// reported uncertainty, or a reference CSV, keeps the reference columns).
var CIFigures = []Figure{ciFigure(FigRate), ciFigure(FigPerRequestTokS), ciFigure(FigTTFT), ciFigure(FigTBT)}

// CSVExtraFigures are RigBench's own figure columns a measurements CSV adds
// after CIFigures when some cell has them, and reads back on import: the
// roofline share, and the server's cross-check (its own token count and
// how far it is from RigBench's), which a spreadsheet needs to see why a
// cell reads Unreliable (issue 41: the CSV had no server-Δ column), and a
// speculative launch's drafting figures (issue 39).
var CSVExtraFigures = []Figure{FigRoofline, FigServerOutputTokens, FigServerTokenDiff, FigSpecAcceptRate, FigSpecAcceptLength, FigStepsPerS, FigProjectedTokS}
