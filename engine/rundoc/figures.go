package rundoc

import (
	"strconv"
	"strings"
	"time"
)

// Better says which way an improvement of a figure goes.
type Better int

// Directions of Figure.Better.
const (
	// Neither: the figure describes the cell (counts, seconds measured) and
	// a change is neither good nor bad.
	Neither Better = iota
	// Higher is better (tok/s).
	Higher
	// Lower is better (latencies, energy).
	Lower
)

// Figure is one measured quantity of a cell, as every output names and
// prints it: the CSV, the Markdown and HTML reports, the charts, the CLI's
// tables, the app's columns and the comparison all read this registry, so a
// figure's name, unit and decimals are written once (issue 11).
type Figure struct {
	// Key is the figure's JSON key in the run document and its CSV column.
	Key string
	// Label is the short lower-case name used in headings and axis titles
	// ("total tok/s", "TTFT ms").
	Label string
	// Title is the capitalised column heading of the app's tables.
	Title string
	// Unit is the unit alone ("tok/s", "ms", "J/token"), "" for counts.
	Unit string
	// Decimals is how many decimals every output prints.
	Decimals int
	// Better says which way an improvement goes.
	Better Better
	// Phase restricts the figure to one kind of cell ("" = both).
	Phase Phase
	// Optional figures get a column in a table of all measurements only
	// when some cell has them, so an imported reference run stays as
	// narrow as its CSV.
	Optional bool
	// value reads the figure from a cell; 0 means not measured unless
	// zeroCounts says otherwise.
	value func(c *Cell) float64
	// zeroCounts reports whether a 0 is a real figure for this cell (a
	// window that ran and produced no token has 0 output tokens), so it
	// is printed rather than left blank.
	zeroCounts func(c *Cell) bool
}

// Value returns the figure of c and whether c has it (not measured, or the
// other phase, gives ok = false).
func (f Figure) Value(c *Cell) (v float64, ok bool) {
	if c == nil || (f.Phase != "" && c.Phase != f.Phase) {
		return 0, false
	}
	v = f.value(c)
	if v == 0 && (f.zeroCounts == nil || !f.zeroCounts(c)) {
		return 0, false
	}
	return v, true
}

// Improves reports whether a change of change percent is an improvement
// (a rise of a Higher figure, a fall of a Lower one).
func (f Figure) Improves(change float64) bool {
	return (f.Better == Higher && change > 0) || (f.Better == Lower && change < 0)
}

// Format prints v with the figure's decimals ("890.6").
func (f Figure) Format(v float64) string {
	return strconv.FormatFloat(v, 'f', f.Decimals, 64)
}

// Text is the figure of c as every table prints it, or "" when c lacks it.
func (f Figure) Text(c *Cell) string {
	v, ok := f.Value(c)
	if !ok {
		return ""
	}
	return f.Format(v)
}

// WithUnit is the figure of c with its unit ("2368 ms", "890.6 tok/s"), or
// "" when c lacks it.
func (f Figure) WithUnit(c *Cell) string {
	t := f.Text(c)
	if t == "" || f.Unit == "" {
		return t
	}
	return t + " " + f.Unit
}

// Rate is a cell's headline rate: prompt tok/s for a prefill cell, total
// output tok/s for a decode cell. The published reference CSVs keep both in
// one column, total_tok_s, and so do RigBench's.
func Rate(c *Cell) float64 {
	if c.Phase == PhasePrefill {
		return c.PromptTokS
	}
	return c.TotalTokS
}

// ReferenceWindow is the decode window of the published runs (the seed
// tool's fixed 30 s). Per-request tok/s and TBT are over each request's
// whole stream up to the window's close, so they depend on where it
// closes; the headline figures are what a window of this length reads,
// whatever window RigBench measured (METHOD.md: Decode cells, step 4).
const ReferenceWindow = 30 * time.Second

// measuredWindow reports whether c's window ran, so a count of 0 is real.
func measuredWindow(c *Cell) bool { return c.MeasuredS > 0 }

// The figures of a cell. Decimals follow the published reference CSVs:
// tok/s and TBT to 0.1, TTFT to whole milliseconds, average active streams
// to 0.01, seconds to 0.1; energy to the millijoule.
var (
	// FigRate is the headline rate of either phase (Rate), the CSV's
	// total_tok_s column.
	FigRate = Figure{Key: "total_tok_s", Label: "tok/s", Title: "Total tok/s", Unit: "tok/s", Decimals: 1, Better: Higher,
		value: Rate}
	// FigTotalTokS is a decode cell's output tokens per second, all streams.
	FigTotalTokS = Figure{Key: "total_tok_s", Label: "total tok/s", Title: "Total tok/s", Unit: "tok/s", Decimals: 1, Better: Higher,
		Phase: PhaseDecode, value: func(c *Cell) float64 { return c.TotalTokS }}
	// FigPerRequestTokS is one stream's output tokens per second.
	FigPerRequestTokS = Figure{Key: "per_request_tok_s", Label: "per-request tok/s", Title: "Per-request tok/s", Unit: "tok/s", Decimals: 1, Better: Higher,
		Phase: PhaseDecode, value: func(c *Cell) float64 { return c.PerRequestTokS }}
	// FigPerRequestTokSWindow is per-request tok/s over the window actually
	// measured, where it was not ReferenceWindow long.
	FigPerRequestTokSWindow = Figure{Key: "per_request_tok_s_window", Label: "per-request tok/s (window)", Title: "Per-request tok/s (window)",
		Unit: "tok/s", Decimals: 1, Better: Higher, Phase: PhaseDecode, Optional: true,
		value: func(c *Cell) float64 { return c.PerRequestTokSWindow }}
	// FigPromptTokS is a prefill cell's prompt tokens / TTFT.
	FigPromptTokS = Figure{Key: "prompt_tok_s", Label: "prompt tok/s", Title: "Prompt tok/s", Unit: "tok/s", Decimals: 1, Better: Higher,
		Phase: PhasePrefill, value: func(c *Cell) float64 { return c.PromptTokS }}
	// FigTTFT is the median time to first token.
	FigTTFT = Figure{Key: "ttft_ms", Label: "TTFT ms", Title: "TTFT ms", Unit: "ms", Decimals: 0, Better: Lower,
		value: func(c *Cell) float64 { return c.TTFTMs }}
	// FigTTFTP90 is the 90th percentile of the time to first token.
	FigTTFTP90 = Figure{Key: "ttft_p90_ms", Label: "TTFT p90 ms", Title: "TTFT p90 ms", Unit: "ms", Decimals: 0, Better: Lower,
		Optional: true, value: func(c *Cell) float64 { return c.TTFTP90Ms }}
	// FigTTFTP99 is the 99th percentile of the time to first token.
	FigTTFTP99 = Figure{Key: "ttft_p99_ms", Label: "TTFT p99 ms", Title: "TTFT p99 ms", Unit: "ms", Decimals: 0, Better: Lower,
		Optional: true, value: func(c *Cell) float64 { return c.TTFTP99Ms }}
	// FigTBT is the median time between tokens.
	FigTBT = Figure{Key: "tbt_ms", Label: "TBT ms", Title: "TBT ms", Unit: "ms", Decimals: 1, Better: Lower,
		Phase: PhaseDecode, value: func(c *Cell) float64 { return c.TBTMs }}
	// FigTBTWindow is TBT over the window actually measured, where it was
	// not ReferenceWindow long.
	FigTBTWindow = Figure{Key: "tbt_ms_window", Label: "TBT ms (window)", Title: "TBT ms (window)", Unit: "ms", Decimals: 1, Better: Lower,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.TBTMsWindow }}
	// FigTBTP90 is the 90th percentile of the time between tokens.
	FigTBTP90 = Figure{Key: "tbt_p90_ms", Label: "TBT p90 ms", Title: "TBT p90 ms", Unit: "ms", Decimals: 1, Better: Lower,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.TBTP90Ms }}
	// FigTBTP99 is the 99th percentile of the time between tokens.
	FigTBTP99 = Figure{Key: "tbt_p99_ms", Label: "TBT p99 ms", Title: "TBT p99 ms", Unit: "ms", Decimals: 1, Better: Lower,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.TBTP99Ms }}
	// FigAvgActive is the time-weighted mean of streams in flight.
	FigAvgActive = Figure{Key: "avg_active", Label: "avg active", Title: "Avg active", Decimals: 2,
		Phase: PhaseDecode, value: func(c *Cell) float64 { return c.AvgActive }}
	// FigCompleted counts requests that finished inside the window.
	FigCompleted = Figure{Key: "completed_requests", Label: "requests", Title: "Requests", Decimals: 0,
		value: func(c *Cell) float64 { return float64(c.CompletedRequests) }}
	// FigOutputTokens counts output tokens received inside the window; 0
	// is a figure when the window ran.
	FigOutputTokens = Figure{Key: "output_tokens", Label: "output tokens", Title: "Output tokens", Decimals: 0,
		value: func(c *Cell) float64 { return float64(c.OutputTokens) }, zeroCounts: measuredWindow}
	// FigMeasuredS is the length of the window measured.
	FigMeasuredS = Figure{Key: "measured_s", Label: "measured s", Title: "Measured s", Unit: "s", Decimals: 1,
		value: func(c *Cell) float64 { return c.MeasuredS }}
	// FigEnergy is the GPU energy per output token.
	FigEnergy = Figure{Key: "energy_j_per_token", Label: "J/token", Title: "J/token", Unit: "J/token", Decimals: 3, Better: Lower,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 { return c.EnergyJPerToken }}
	// FigKVUsageMax is the highest KV cache usage the server reported in the
	// window, in percent.
	FigKVUsageMax = Figure{Key: "kv_usage_max", Label: "KV usage max %", Title: "KV max %", Unit: "%", Decimals: 0,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 {
			if c.ServerStats == nil {
				return 0
			}
			return c.ServerStats.KVUsageMax * 100
		}}
	// FigPowerW is the mean GPU power over the window (all GPUs).
	FigPowerW = Figure{Key: "power_mean_w", Label: "power W", Title: "Power W", Unit: "W", Decimals: 0,
		Phase: PhaseDecode, Optional: true, value: func(c *Cell) float64 {
			if c.GPUStats == nil {
				return 0
			}
			return c.GPUStats.PowerMeanW
		}}
)

// CSVFigures are the figure columns of the measurements CSV, in order, after
// the cell's phase, context and concurrency and status. They are the
// columns of the published reference runs.
var CSVFigures = []Figure{FigRate, FigPerRequestTokS, FigTTFT, FigTBT, FigAvgActive, FigCompleted, FigOutputTokens, FigMeasuredS}

// MeasurementFigures are the figure columns of every table of all
// measurements (the app's Results table, the Markdown and HTML reports), in
// order; Optional ones appear only when some cell has them.
var MeasurementFigures = []Figure{FigRate, FigPerRequestTokS, FigTTFT, FigTTFTP90, FigTTFTP99, FigTBT, FigTBTP90,
	FigTBTP99, FigPerRequestTokSWindow, FigTBTWindow, FigAvgActive, FigCompleted, FigOutputTokens, FigMeasuredS, FigRoofline, FigKVUsageMax, FigPowerW, FigEnergy,
	FigRetried, FigNeverStarted, FigServerOutputTokens, FigServerTokenDiff, FigServerDecodeTokS, FigServerPromptTokS,
	FigSpecAcceptRate, FigSpecAcceptLength, FigStepsPerS, FigProjectedTokS}

// Used returns the figures of fs that some cell of cells has, keeping every
// figure that is not Optional.
func Used(fs []Figure, cells []Cell) []Figure {
	var out []Figure
	for _, f := range fs {
		keep := !f.Optional
		for i := 0; !keep && i < len(cells); i++ {
			_, keep = f.Value(&cells[i])
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// CompareFigures are the figures a comparison of runs puts side by side,
// each with its change in percent.
// Burst figures (FigLatency, FigBurstTokS) compare burst cells alone.
var CompareFigures = []Figure{FigTotalTokS, FigPerRequestTokS, FigTTFT, FigPromptTokS, FigRoofline, FigLatency, FigBurstTokS}

// MatrixLines is a decode cell as the graphical matrices (the app's, the
// HTML report's) show it, on two self-describing lines: "890.6 tok/s" and
// "TTFT 2368 ms", the second starting "queued · " when its requests queued
// (its throughput is then not like for like); a cell that did not run
// gives its status and "", an Unreliable one its status and the head of
// its reason ("Unreliable", "counter +79.7%"). Both lines use the
// registry's decimals.
func MatrixLines(c *Cell) (rate, ttft string) {
	switch {
	case c == nil:
		return "", ""
	case c.Status == StatusUnreliable:
		return string(c.Status), UnreliableHead(c)
	case c.Status.Ran():
		rate = FigTotalTokS.WithUnitCI(c)
		if t := FigTTFT.WithUnit(c); t != "" {
			ttft = "TTFT " + t
		}
		if c.Status == StatusQueued {
			ttft = strings.TrimSuffix("queued · "+ttft, " · ")
		}
		return rate, ttft
	default:
		return string(c.Status), ""
	}
}

// MatrixRoofline is the third, small line a matrix cell of the app shows
// under MatrixLines: its share of the memory-bandwidth roofline ("65 % of
// BW"), "" when the cell has none (not measured, or an input unknown).
func MatrixRoofline(c *Cell) string {
	if c == nil || !c.Status.Ran() {
		return ""
	}
	if t := FigRoofline.WithUnit(c); t != "" {
		return t + " of BW"
	}
	return ""
}

// MatrixText is a decode cell as the text matrices (the CLI's, the
// Markdown's, headed "total tok/s · TTFT") print it on one line:
// "890.6 · 2368 ms", starred "890.6 · 2368 ms*" when its requests queued
// (QueuedNote explains the star), else its status (StatusText: an
// Unreliable cell's with the head of its reason).
func MatrixText(c *Cell) string {
	if c == nil || !c.Status.Ran() {
		return StatusText(c)
	}
	s := FigTotalTokS.TextCI(c)
	if t := FigTTFT.WithUnit(c); t != "" {
		s += " · " + t
	}
	if c.Status == StatusQueued {
		s += "*"
	}
	return s
}

// QueuedNote explains the star of MatrixLines under a matrix.
const QueuedNote = "* Requests queued: the server did not run all N requests at once."
