package rundoc

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// CutText returns s when it is at most max bytes, else its first bytes
// (cut at a character boundary) followed by a note saying how long it was,
// max bytes in all. Text a server or a probe sends is cut so; text the user
// types is refused at the flag instead (CheckLabels).
func CutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	note := fmt.Sprintf(" … [cut by RigBench: %d bytes, over the limit of %d]", len(s), max)
	keep := max - len(note)
	if keep < 0 {
		return cutBytes(s, max)
	}
	return cutBytes(s, keep) + note
}

// cutBytes returns the longest prefix of s of at most n bytes that ends at a
// character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// CheckLabels checks the words a user gives a run (name, tags, notes)
// against the limits an import applies, so a run saved with them always
// imports again. The CLI and the app call it where the words are typed.
func CheckLabels(name string, tags []string, notes string) error {
	v := validator{}
	v.labels(name, tags, notes)
	return v.err
}

// Fit brings what a run holds from outside the user's hands within the
// limits ValidateRun applies, so every run the runner saves exports and
// imports again: text the server or the machine sent (model id, engine,
// version, error messages, reasons, hardware names) is cut with CutText,
// numbers a server reported beyond any real value are dropped as unknown,
// and labels that slipped past CheckLabels are cut, empty or repeated tags
// dropped. It changes r in place; a run within the limits is unchanged.
func Fit(r *Run) {
	r.Name = CutText(r.Name, MaxNameLen)
	r.Notes = CutText(r.Notes, MaxNotesLen)
	r.Error = CutText(r.Error, MaxTextLen)
	r.Tags = fitTags(r.Tags)
	s := &r.Server
	s.Model = CutText(s.Model, MaxServerTextLen)
	s.Engine = CutText(s.Engine, MaxServerTextLen)
	s.Version = CutText(s.Version, MaxServerTextLen)
	if s.MaxModelLen < 0 || s.MaxModelLen > MaxContextTokens {
		s.MaxModelLen = 0
	}
	if s.KVCapacityTokens < 0 || s.KVCapacityTokens > math.MaxInt32 {
		s.KVCapacityTokens, s.KVCapacitySource = 0, KVSourceUnknown
	}
	if l := r.Launch; l != nil {
		l.Image = CutText(l.Image, MaxTextLen)
		l.Model = CutText(l.Model, MaxTextLen)
		l.ServeCommand = CutText(l.ServeCommand, MaxTextLen)
		l.DockerCommand = CutText(l.DockerCommand, MaxTextLen)
		l.GPUs = CutText(l.GPUs, MaxNameLen)
		if len(strings.Join(l.Args, " ")) > MaxTextLen {
			// Keep whole arguments while they fit, then say the rest was cut.
			var kept []string
			n := 0
			for _, a := range l.Args {
				if n+len(a)+1 > MaxTextLen-64 {
					break
				}
				kept, n = append(kept, a), n+len(a)+1
			}
			l.Args = append(kept, fmt.Sprintf("[%d more arguments cut by RigBench]", len(l.Args)-len(kept)))
		}
	}
	if h := r.Hardware; h != nil {
		h.GPUAbsentReason = CutText(h.GPUAbsentReason, MaxTextLen)
		for _, p := range []*string{&h.DriverVersion, &h.CUDADriverVersion, &h.CPU.Model, &h.OS.Name, &h.OS.Version, &h.OS.Kernel, &h.OS.Arch} {
			*p = CutText(*p, MaxNameLen)
		}
		for i := range h.GPUs {
			g := &h.GPUs[i]
			g.Name = CutText(g.Name, MaxNameLen)
			g.UUID = CutText(g.UUID, MaxNameLen)
			g.ComputeCapability = CutText(g.ComputeCapability, MaxNameLen)
		}
	}
	for i := range r.Cells {
		fitCell(&r.Cells[i])
	}
}

// fitCell cuts the cell's reason and brings counts and figures a server
// reported beyond any real value (usage of 2^62 tokens, NaN in /metrics)
// into the validator's range: counts to 0…2^31−1, figures to 0…10^15,
// rates to 0…MaxTokS.
func fitCell(c *Cell) {
	c.Reason = CutText(c.Reason, MaxTextLen)
	for _, n := range []*int{&c.PromptTokens, &c.CompletedRequests, &c.OutputTokens, &c.ChunkTokens} {
		*n = min(max(*n, 0), math.MaxInt32)
	}
	for _, f := range []*float64{&c.PromptTokS, &c.TotalTokS, &c.PerRequestTokS, &c.TTFTMs, &c.TBTMs, &c.TTFTP90Ms,
		&c.TTFTP99Ms, &c.TBTP90Ms, &c.TBTP99Ms, &c.AvgActive, &c.MeasuredS, &c.EnergyJPerToken, &c.PerRequestTokSWindow,
		&c.TBTMsWindow} {
		fitNum(f)
	}
	for _, f := range []*float64{&c.PromptTokS, &c.TotalTokS, &c.PerRequestTokS} {
		*f = min(*f, MaxTokS) // rates have their own bound (ValidateRun)
	}
	for j := range c.ServerSamples {
		s := &c.ServerSamples[j]
		if math.IsNaN(s.T) {
			s.T = 0
		}
		s.T = min(max(s.T, -maxFigure), maxFigure)
		for _, f := range []*float64{&s.Running, &s.Waiting, s.KVUsage, s.PrefixCacheQueries, s.PrefixCacheHits, s.Preemptions} {
			if f != nil {
				fitNum(f)
			}
		}
	}
	for j := range c.GPUSamples {
		s := &c.GPUSamples[j]
		for _, f := range []*float64{&s.T, &s.PowerW, &s.SMClockMHz, &s.MemClockMHz, &s.TempC, &s.UtilGPU, &s.UtilMem, &s.EnergyJ} {
			fitNum(f)
		}
	}
	if s := c.ServerStats; s != nil {
		for _, f := range []*float64{&s.RunningMean, &s.WaitingMax, &s.KVUsageMean, &s.KVUsageMax, &s.PrefixHitRate, &s.Preemptions} {
			fitNum(f)
		}
	}
	if s := c.GPUStats; s != nil {
		for _, f := range []*float64{&s.PowerMeanW, &s.PowerMaxW, &s.SMClockMeanMHz, &s.SMClockMaxMHz, &s.MemClockMeanMHz, &s.TempMeanC, &s.TempMaxC, &s.UtilGPUMean, &s.UtilMemMean, &s.EnergyMeanW} {
			fitNum(f)
		}
		for j := range s.PerGPU {
			p := &s.PerGPU[j]
			for _, f := range []*float64{&p.PowerMeanW, &p.PowerMaxW, &p.TempMaxC, &p.EnergyMeanW, &p.EnergyJPerToken} {
				fitNum(f)
			}
		}
	}
}

// fitNum brings f into the validator's range of figures: NaN and negative
// values are 0 (not measured), values above maxFigure are maxFigure.
func fitNum(f *float64) {
	if math.IsNaN(*f) || *f < 0 {
		*f = 0
	}
	*f = min(*f, maxFigure)
}

// fitTags drops empty and repeated tags, cuts long ones and keeps at most
// MaxTags.
func fitTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = cutBytes(strings.TrimSpace(t), MaxTagLen)
		if t == "" || slices.Contains(out, t) || len(out) == MaxTags {
			continue
		}
		out = append(out, t)
	}
	if len(out) == len(tags) && slices.Equal(out, tags) {
		return tags // unchanged, nil stays nil
	}
	return out
}
