package rundoc

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PhaseBurst is a burst cell (METHOD.md: Burst cells): exactly K requests at
// concurrency N after the cell's own warm-up, figures over the whole burst.
// It is a phase of its own, not a decode cell with a flag, so every matrix,
// headline, chart, comparison, verdict and diagnosis that reads decode
// cells (the sustained ones) leaves burst cells out by construction; only
// the burst tables read them. Runs written before burst cells have none,
// so every decode cell of them reads as sustained.
const PhaseBurst Phase = "burst"

// Burst modes of Plan.Burst.
const (
	// BurstAfter runs a burst cell for every cell of the decode grid
	// after the sustained matrix (run --burst).
	BurstAfter = "after"
	// BurstOnly runs burst cells instead of the sustained windows (run
	// --request-count K); prefill cells still run.
	BurstOnly = "only"
)

// BurstPerConcurrency is the default K per unit of concurrency: a burst
// cell at concurrency N sends BurstPerConcurrency × N measured requests
// unless Plan.RequestCount says otherwise, so each of its N lanes serves
// four requests and the last wave's tail is a quarter of the burst.
const BurstPerConcurrency = 4

// DefaultBurstLimit is the card time a burst cell's measured requests may
// take before the cell fails (Plan.BurstLimitS 0): K requests of M tokens
// on a slow card take minutes, never half an hour at the default K.
const DefaultBurstLimit = 30 * time.Minute

// MaxRequestCount bounds K: more requests than this is no burst but a
// soak test, and its per-request records would outgrow a run document.
const MaxRequestCount = 100000

// CellBurst holds the figures only a burst cell has (METHOD.md: Burst
// cells); zero and absent from JSON in every other cell. A burst cell also
// fills TTFTMs (median, with TTFTMsCI95), TTFTP90Ms, TTFTP99Ms, TotalTokS
// (tok/s over the burst, with TotalTokSCI95), CompletedRequests,
// OutputTokens, PromptTokens and MeasuredS (the burst's length).
type CellBurst struct {
	// RequestCount is K, the measured requests the cell sent (target;
	// CompletedRequests says how many finished).
	RequestCount int `json:"request_count,omitempty"`
	// WarmupRequests is how many unmeasured requests the cell sent at its
	// concurrency before the measured ones.
	WarmupRequests int `json:"warmup_requests,omitempty"`
	// LatencyMs is the median end-to-end request latency, from a request's
	// send to its last token, over the completed requests; P90 and P99
	// are its 90th and 99th percentiles (linear interpolation, Quantile).
	LatencyMs     float64 `json:"latency_ms,omitempty"`
	LatencyMsCI95 float64 `json:"latency_ms_ci95,omitempty"`
	LatencyP90Ms  float64 `json:"latency_p90_ms,omitempty"`
	LatencyP99Ms  float64 `json:"latency_p99_ms,omitempty"`
	// LatencyMeanMs is the mean end-to-end latency (the seed tool's
	// request_latency_avg).
	LatencyMeanMs float64 `json:"latency_mean_ms,omitempty"`
	// RequestsPerS is completed requests ÷ the burst's length (from the
	// first measured send to the last token).
	RequestsPerS     float64 `json:"requests_per_s,omitempty"`
	RequestsPerSCI95 float64 `json:"requests_per_s_ci95,omitempty"`
}

// RequestCountFor is K for a burst cell of concurrency n under the plan:
// Plan.RequestCount, else BurstPerConcurrency × n.
func (p Plan) RequestCountFor(n int) int {
	if p.RequestCount > 0 {
		return p.RequestCount
	}
	return BurstPerConcurrency * n
}

// BurstLimit is how long a burst cell's measured requests may take, in the
// card's time.
func (p Plan) BurstLimit() time.Duration {
	if p.BurstLimitS > 0 {
		return time.Duration(p.BurstLimitS * float64(time.Second))
	}
	return DefaultBurstLimit
}

// HasBurst reports whether the plan runs burst cells.
func (p Plan) HasBurst() bool { return p.Burst == BurstAfter || p.Burst == BurstOnly }

// validateBurst checks the plan's burst fields (Validate).
func (p Plan) validateBurst() error {
	switch {
	case p.Burst != "" && !p.HasBurst():
		return fmt.Errorf("the burst mode must be %q or %q, not %q", BurstAfter, BurstOnly, p.Burst)
	case p.RequestCount < 0 || p.RequestCount > MaxRequestCount:
		return fmt.Errorf("the request count must be from 1 to %d, not %d: give --request-count a count of requests per burst cell", MaxRequestCount, p.RequestCount)
	case p.BurstLimitS < 0:
		return fmt.Errorf("the burst time limit must be positive, not %gs", p.BurstLimitS)
	case p.HasBurst() && len(p.Contexts) == 0:
		return fmt.Errorf("burst cells need decode contexts and concurrency levels: give --contexts and --concurrency")
	}
	return nil
}

// BurstCells returns the burst cells in ascending context, then
// concurrency order: the burst table's rows.
func (r *Run) BurstCells() []Cell {
	var out []Cell
	for _, c := range r.Cells {
		if c.Phase == PhaseBurst {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Cell) int {
		return cmp.Or(cmp.Compare(a.Context, b.Context), cmp.Compare(a.Concurrency, b.Concurrency))
	})
	return out
}

// The figures of a burst cell (METHOD.md: Burst cells). They are of
// PhaseBurst alone, so no decode table prints them, and the decode
// figures (FigTotalTokS, FigTBT …) are blank on a burst cell.
var (
	// FigLatency is the median end-to-end request latency of a burst.
	FigLatency = Figure{Key: "latency_ms", Label: "latency p50 ms", Title: "Latency p50 ms", Unit: "ms", Decimals: 0, Better: Lower,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return c.LatencyMs }}
	// FigLatencyP90 is the 90th percentile of end-to-end latency.
	FigLatencyP90 = Figure{Key: "latency_p90_ms", Label: "latency p90 ms", Title: "Latency p90 ms", Unit: "ms", Decimals: 0, Better: Lower,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return c.LatencyP90Ms }}
	// FigLatencyP99 is the 99th percentile of end-to-end latency.
	FigLatencyP99 = Figure{Key: "latency_p99_ms", Label: "latency p99 ms", Title: "Latency p99 ms", Unit: "ms", Decimals: 0, Better: Lower,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return c.LatencyP99Ms }}
	// FigBurstTTFT is a burst's median TTFT (FigTTFT of burst cells only).
	FigBurstTTFT = Figure{Key: "ttft_ms", Label: "TTFT ms", Title: "TTFT ms", Unit: "ms", Decimals: 0, Better: Lower,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return c.TTFTMs }}
	// FigRequestsPerS is completed requests per second over a burst.
	FigRequestsPerS = Figure{Key: "requests_per_s", Label: "requests/s", Title: "Requests/s", Unit: "req/s", Decimals: 2, Better: Higher,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return c.RequestsPerS }}
	// FigBurstTokS is output tok/s over a burst.
	FigBurstTokS = Figure{Key: "total_tok_s", Label: "burst tok/s", Title: "Burst tok/s", Unit: "tok/s", Decimals: 1, Better: Higher,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return c.TotalTokS }}
	// FigBurstCompleted is the measured requests that finished, of K.
	FigBurstCompleted = Figure{Key: "completed_requests", Label: "completed", Title: "Completed", Decimals: 0,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return float64(c.CompletedRequests) }, zeroCounts: measuredWindow}
	// FigRequestCount is K, the measured requests a burst cell sent.
	FigRequestCount = Figure{Key: "request_count", Label: "K", Title: "K", Decimals: 0,
		Phase: PhaseBurst, value: func(c *Cell) float64 { return float64(c.RequestCount) }}
)

// BurstFigures are the columns of every burst table (the CLI's, the
// Markdown and HTML reports', the app's), in order.
var BurstFigures = []Figure{FigLatency, FigLatencyP90, FigLatencyP99, FigBurstTTFT, FigRequestsPerS, FigBurstTokS,
	FigBurstCompleted, FigRequestCount}

// CSVBurstFigures are the columns a measurements CSV adds when the run
// has burst cells, and reads back on import: the figures only a burst cell
// has, with their half-widths; a burst row's tok/s, TTFT and completed
// requests are in the CSV's own columns.
var CSVBurstFigures = []Figure{FigLatency, ciFigure(FigLatency), FigLatencyP90, FigLatencyP99, FigRequestsPerS,
	ciFigure(FigRequestsPerS), FigRequestCount}

// BurstHeader is the header of every burst table: the cell, the burst
// figures (BurstFigures) and the status.
func BurstHeader() []string {
	head := []string{"cell"}
	for _, f := range BurstFigures {
		head = append(head, f.Label)
	}
	return append(head, "status")
}

// BurstRow is one burst cell as every burst table prints it, under
// BurstHeader: its name ("0×4"), each figure with its ± ("" where it has
// none) and its status (StatusText).
func BurstRow(c *Cell) []string {
	row := []string{c.Name()}
	for _, f := range BurstFigures {
		row = append(row, f.TextCI(c))
	}
	return append(row, StatusText(c))
}

// burstCI95 is CI95 for the figures only a burst cell has.
func (c *Cell) burstCI95(key string) float64 {
	switch key {
	case "latency_ms":
		return c.LatencyMsCI95
	case "requests_per_s":
		return c.RequestsPerSCI95
	}
	return 0
}

// burst checks a cell's burst figures (the validator's cell).
func (v *validator) burst(where string, b CellBurst) {
	v.intRange(where+": request_count", b.RequestCount, 0, MaxRequestCount)
	v.intRange(where+": warmup_requests", b.WarmupRequests, 0, MaxRequestCount)
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"latency_ms", b.LatencyMs}, {"latency_ms_ci95", b.LatencyMsCI95}, {"latency_p90_ms", b.LatencyP90Ms},
		{"latency_p99_ms", b.LatencyP99Ms}, {"latency_mean_ms", b.LatencyMeanMs}, {"requests_per_s_ci95", b.RequestsPerSCI95},
	} {
		v.num(where+": "+f.name, f.v)
	}
	v.rate(where+": requests_per_s", b.RequestsPerS)
}

// burstInput renders the plan's burst fields as typed (Plan.Input): Burst
// "after" or "only" ("" for none), K and the limit where they are set.
func (p Plan) burstInput(in *PlanInput) {
	in.Burst = p.Burst
	if p.RequestCount > 0 {
		in.RequestCount = strconv.Itoa(p.RequestCount)
		if p.Burst == BurstOnly {
			in.Burst = "" // K alone reads as instead of the matrix
		}
	}
	if p.BurstLimitS > 0 {
		in.BurstLimit = strconv.FormatFloat(p.BurstLimitS, 'f', -1, 64)
	}
}

// burst reads the burst fields into p (PlanInput.Plan).
func (in PlanInput) burst(p *Plan) error {
	switch b := strings.ToLower(strings.TrimSpace(in.Burst)); b {
	case "", "false", "off", "no", "0":
	case "true", "on", "yes", "1", BurstAfter:
		p.Burst = BurstAfter
	case BurstOnly:
		p.Burst = BurstOnly
	default:
		return &FieldError{FieldBurst, fmt.Sprintf("must be on (burst cells after the sustained matrix), off, or only (instead of it), not %q", in.Burst)}
	}
	if t := strings.TrimSpace(in.RequestCount); t != "" {
		k, err := strconv.Atoi(t)
		if err != nil || k < 1 || k > MaxRequestCount {
			return &FieldError{FieldRequestCount, fmt.Sprintf("must be a whole number of requests per burst cell from 1 to %d, e.g. 64, or empty for 4 × the concurrency, not %q", MaxRequestCount, in.RequestCount)}
		}
		p.RequestCount = k
		if p.Burst == "" {
			p.Burst = BurstOnly
		}
	}
	if t := strings.TrimSpace(in.BurstLimit); t != "" {
		d, err := time.ParseDuration(t)
		if secs, nerr := strconv.ParseFloat(t, 64); nerr == nil {
			d, err = time.Duration(secs*float64(time.Second)), nil
		}
		if err != nil || d < MinDuration || d > 24*time.Hour {
			return &FieldError{FieldBurstLimit, fmt.Sprintf("must be a length from %s to 24h, e.g. 30m, or empty for %s, not %q", MinDuration, ShortDuration(DefaultBurstLimit), in.BurstLimit)}
		}
		p.BurstLimitS = d.Seconds()
	}
	return nil
}
