package rundoc

import "strings"

// HeadlineTTFTContext is the prompt length whose time to first token the
// headline quotes when the run has a Valid prefill cell there: a long
// prompt a reader of a benchmark site compares cards by ("TTFT at 16K").
const HeadlineTTFTContext = 16384

// Headline is a run's few figures a person reads first, above its matrix
// (issue 41: "best 568 tok/s at 0×16 · one stream 49 tok/s · TTFT at 16K
// 1.4 s"). Each points at the cell it was read from, and only Valid cells
// count: an Unreliable, Failed or queued cell is no headline (a queued
// cell's rate is real but not what the card sustains with all N in
// flight, as History's best figure says). A nil field means no Valid cell
// gives that figure.
type Headline struct {
	// Best is the decode cell of the highest total tok/s.
	Best *Cell
	// OneStream is the decode cell at concurrency 1 of the highest total
	// tok/s: what one user alone gets.
	OneStream *Cell
	// TTFT is the prefill cell at HeadlineTTFTContext, or, without a
	// Valid one there, the Valid prefill cell of the longest prompt.
	TTFT *Cell
}

// HeadlineOf reads r's headline from its Valid cells. The app's Results
// card, the Markdown and HTML reports and the CLI's `show` all call it, so
// the headline cannot differ between them.
func HeadlineOf(r *Run) Headline {
	var h Headline
	if r == nil {
		return h
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Status != StatusValid {
			continue
		}
		switch c.Phase {
		case PhaseDecode:
			if h.Best == nil || c.TotalTokS > h.Best.TotalTokS {
				h.Best = c
			}
			if c.Concurrency == 1 && (h.OneStream == nil || c.TotalTokS > h.OneStream.TotalTokS) {
				h.OneStream = c
			}
		case PhasePrefill:
			if c.TTFTMs <= 0 {
				continue
			}
			switch {
			case h.TTFT == nil,
				c.Context == HeadlineTTFTContext,
				h.TTFT.Context != HeadlineTTFTContext && c.Context > h.TTFT.Context:
				h.TTFT = c
			}
		}
	}
	return h
}

// NoHeadline is what the headline says when no cell of the run is Valid.
const NoHeadline = "No Valid cell, so no headline figure: see each cell's status."

// Parts are the headline's figures in words, each with the figure
// registry's decimals and units ("best 568.3 tok/s at 0×16", "one stream
// 49.1 tok/s", "TTFT at 16K 1432 ms"); none when no cell is Valid.
func (h Headline) Parts() []string {
	var out []string
	if h.Best != nil {
		out = append(out, "best "+FigTotalTokS.WithUnit(h.Best)+" at "+h.Best.Name())
	}
	if h.OneStream != nil {
		s := "one stream " + FigTotalTokS.WithUnit(h.OneStream)
		if h.OneStream.Context != 0 {
			s += " at " + ContextLabel(h.OneStream.Context)
		}
		out = append(out, s)
	}
	if h.TTFT != nil {
		out = append(out, "TTFT at "+ContextLabel(h.TTFT.Context)+" "+FigTTFT.WithUnit(h.TTFT))
	}
	return out
}

// Text is the headline on one line, its parts joined by " · ", or
// NoHeadline when no cell is Valid.
func (h Headline) Text() string {
	if p := h.Parts(); len(p) > 0 {
		return strings.Join(p, " · ")
	}
	return NoHeadline
}
