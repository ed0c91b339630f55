package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// MaxReferenceCSVBytes bounds what ReadReferenceCSV reads: a full plan is a
// few hundred rows of under 100 bytes, so 4 MiB is far above any real file
// and keeps a hostile file from exhausting memory.
const MaxReferenceCSVBytes = 4 << 20

// Sanity bounds of the figures of an imported row. They are far above any
// real card and exist so a typo or a hostile file cannot produce absurd
// runs (a 2^62-token context) in the history.
const (
	maxContextTokens = 1 << 24 // 16M tokens
	maxConcurrency   = 1 << 16
	maxFigure        = 1e12
)

// referenceNamespace seeds the name-based UUID of an imported reference
// file, so importing the same bytes twice gives the same run UUID and the
// store's import stays idempotent.
var referenceNamespace = uuid.MustParse("6f1d3c0e-8a4b-5e7f-9c21-3b5a7d9e0f42")

// ReadReferenceCSV reads a measurements CSV in the format of the published
// reference runs (the columns of CSVColumns; extra columns are ignored) into
// a run with Origin "imported" and status complete. A SimulatedColumn that
// says yes (or true, 1) marks the run Simulated. Figures come only from
// the file: blank fields stay unmeasured (0), and nothing the file does not
// say is made up. CreatedAt is left zero for the caller to set (the time of
// import); the UUID is derived from the file's bytes.
func ReadReferenceCSV(r io.Reader) (*rundoc.Run, error) {
	return ReadReferenceCSVNamed(r, "")
}

// ReadReferenceCSVNamed is ReadReferenceCSV for a file whose name follows
// the reference naming scheme GPU_MODEL_ENGINE-VERSION.csv (e.g.
// rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv): the GPU name, model and
// engine are taken from it. A name that does not follow the scheme only
// names the run.
func ReadReferenceCSVNamed(r io.Reader, name string) (*rundoc.Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxReferenceCSVBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the CSV file: %w", err)
	}
	if len(data) > MaxReferenceCSVBytes {
		return nil, fmt.Errorf("the CSV file is larger than %d MiB; is it really a RigBench measurements file?", MaxReferenceCSVBytes>>20)
	}
	cells, head, err := parseReferenceCells(data)
	if err != nil {
		return nil, err
	}
	simulated := head.sim.yes
	sum := sha256.Sum256(data)
	run := &rundoc.Run{
		Schema:    rundoc.Schema,
		UUID:      uuid.NewSHA1(referenceNamespace, sum[:]).String(),
		Status:    rundoc.RunComplete,
		Origin:    rundoc.OriginImported,
		Simulated: simulated,
		Cells:     cells,
		Server:    rundoc.Server{KVCapacitySource: rundoc.KVSourceUnknown},
	}
	run.Plan = planFromCells(cells)
	// The file says what served it only in RigBench's simulated column.
	run.Source = &rundoc.Source{Format: rundoc.SourceCSV, ServerKnown: head.sim.col >= 0}
	if head.published {
		// The published pages' columns and nothing else: the seed tool's
		// file, measured the seed tool's way (METHOD.md): fixed windows
		// opened at steady state, one shared prompt per context.
		run.Plan.Window, run.Plan.WindowOpens, run.Plan.Prompts = rundoc.WindowFixed, rundoc.OpensSteady, rundoc.PromptsShared
		run.Source.WrittenBy = "llm-inference-bench"
	}
	applyReferenceName(run, name)
	return run, nil
}

// csvHeader is what a CSV's header and columns say about its run.
type csvHeader struct {
	// sim is the SimulatedColumn's reading (col < 0: no such column).
	sim simulatedMark
	// published is true when the header has only CSVColumns, those of
	// the seed tool's published pages: RigBench's own CSVs add their
	// half-widths, roofline or simulated columns.
	published bool
}

// parseReferenceCells parses the CSV body into cells, checking every field,
// and says what its header and SimulatedColumn say about the run.
func parseReferenceCells(data []byte) ([]rundoc.Cell, csvHeader, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // spreadsheet BOM
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, csvHeader{}, errors.New("the CSV file is empty: export the run again as CSV from RigBench")
	}
	if err != nil {
		return nil, csvHeader{}, fmt.Errorf("the file is not a valid CSV (%w): export the run again as CSV from RigBench", err)
	}
	col, err := columnIndex(header)
	if err != nil {
		return nil, csvHeader{}, err
	}
	var cells []rundoc.Cell
	seen := map[[3]any]int{}
	sim := simulatedMark{col: -1}
	if i, ok := col[SimulatedColumn]; ok {
		sim.col = i
	}
	published := true
	for h := range col {
		if h != "" && !slices.Contains(CSVColumns, h) {
			published = false
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvHeader{}, fmt.Errorf("the file is not a valid CSV (%w): export the run again as CSV from RigBench", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if len(rec) != len(header) {
			return nil, csvHeader{}, fmt.Errorf("line %d has %d fields, the header has %d", line, len(rec), len(header))
		}
		c, err := parseReferenceRow(rec, col)
		if err != nil {
			return nil, csvHeader{}, fmt.Errorf("line %d: %w", line, err)
		}
		if err := sim.read(rec, line); err != nil {
			return nil, csvHeader{}, err
		}
		key := [3]any{c.Phase, c.Context, c.Concurrency}
		if prev, dup := seen[key]; dup {
			return nil, csvHeader{}, fmt.Errorf("line %d repeats the %s cell at context %d, concurrency %d of line %d", line, c.Phase, c.Context, c.Concurrency, prev)
		}
		seen[key] = line
		cells = append(cells, c)
		if len(cells) > rundoc.MaxCells {
			// Said while reading, not after 400,000 rows are held.
			return nil, csvHeader{}, fmt.Errorf("line %d: the file has more than %d measurements, far more than any real run; RigBench reads at most %d", line, rundoc.MaxCells, rundoc.MaxCells)
		}
	}
	if len(cells) == 0 {
		return nil, csvHeader{}, errors.New("the CSV file has a header but no measurements")
	}
	return cells, csvHeader{sim: sim, published: published}, nil
}

// simulatedMark reads SimulatedColumn row by row. A run is simulated or
// not as a whole, so rows that disagree are an error rather than a guess.
type simulatedMark struct {
	col      int // -1: the file has no such column
	yes      bool
	seen     bool
	lastLine int
}

func (m *simulatedMark) read(rec []string, line int) error {
	if m.col < 0 {
		return nil
	}
	var yes bool
	switch v := strings.ToLower(strings.TrimSpace(rec[m.col])); v {
	case "yes", "true", "1":
		yes = true
	case "no", "false", "0", "":
	default:
		return fmt.Errorf("line %d: simulated %q is neither yes nor no; write yes for a simulated run, or leave the column empty", line, rec[m.col])
	}
	if m.seen && yes != m.yes {
		return fmt.Errorf("line %d says simulated %s and line %d %s; a file holds one run, so mark all its rows the same", line, yesNo(yes), m.lastLine, yesNo(m.yes))
	}
	m.yes, m.seen, m.lastLine = yes, true, line
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// columnIndex maps each known column to its position in header and checks
// that the columns a cell cannot do without are there.
func columnIndex(header []string) (map[string]int, error) {
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := col[h]; dup && h != "" {
			return nil, fmt.Errorf("the CSV header names the column %q twice", h)
		}
		col[h] = i
	}
	for _, need := range []string{"phase", "context_tokens", "concurrency", "status"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the CSV header has no %q column; expected the columns %s", need, strings.Join(CSVColumns, ","))
		}
	}
	return col, nil
}

// parseReferenceRow turns one record into a cell.
func parseReferenceRow(rec []string, col map[string]int) (rundoc.Cell, error) {
	field := func(name string) string {
		if i, ok := col[name]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var c rundoc.Cell
	switch p := rundoc.Phase(field("phase")); p {
	case rundoc.PhasePrefill, rundoc.PhaseDecode, rundoc.PhaseBurst:
		c.Phase = p
	default:
		return c, fmt.Errorf("phase %q is not prefill, decode or burst", field("phase"))
	}
	st, err := ParseStatus(field("status"))
	if err != nil {
		return c, err
	}
	c.Status = st
	p := &rowParser{field: field}
	c.Context = p.int("context_tokens", maxContextTokens, true)
	c.Concurrency = p.int("concurrency", maxConcurrency, true)
	tokS := p.rate("total_tok_s")
	c.PerRequestTokS = p.rate("per_request_tok_s")
	c.TTFTMs = p.float("ttft_ms")
	c.TBTMs = p.float("tbt_ms")
	c.AvgActive = p.float("avg_active")
	c.CompletedRequests = p.int("completed_requests", math.MaxInt32, false)
	c.OutputTokens = p.int("output_tokens", math.MaxInt32, false)
	c.MeasuredS = p.float("measured_s")
	// The half-widths RigBench's own CSVs carry (rundoc.CIFigures); a
	// reference run has none.
	tokSCI := p.float("total_tok_s_ci95")
	c.PerRequestTokSCI95 = p.float("per_request_tok_s_ci95")
	c.TTFTMsCI95 = p.float("ttft_ms_ci95")
	c.TBTMsCI95 = p.float("tbt_ms_ci95")
	// rundoc.CSVExtraFigures
	c.RooflinePct = p.float(rundoc.FigRoofline.Key)
	c.ServerOutputTokens = p.int(rundoc.FigServerOutputTokens.Key, math.MaxInt32, false)
	c.ServerTokenDiffPct = p.diffPct(rundoc.FigServerTokenDiff.Key)
	c.SpecAcceptRate = p.float(rundoc.FigSpecAcceptRate.Key) / 100 // the CSV says it in %
	c.SpecAcceptLengthEff = p.float(rundoc.FigSpecAcceptLength.Key)
	c.StepsPerS = p.float(rundoc.FigStepsPerS.Key)
	c.ProjectedTokS = p.float(rundoc.FigProjectedTokS.Key)
	c.Reason = field(ReasonColumn)
	if c.Phase == rundoc.PhaseBurst {
		// rundoc.CSVBurstFigures
		c.LatencyMs, c.LatencyMsCI95 = p.float("latency_ms"), p.float("latency_ms_ci95")
		c.LatencyP90Ms, c.LatencyP99Ms = p.float("latency_p90_ms"), p.float("latency_p99_ms")
		c.RequestsPerS, c.RequestsPerSCI95 = p.float("requests_per_s"), p.float("requests_per_s_ci95")
		c.RequestCount = p.int("request_count", rundoc.MaxRequestCount, false)
	}
	if p.err != nil {
		return c, p.err
	}
	if c.Concurrency == 0 {
		return c, errors.New("concurrency must be at least 1")
	}
	if c.Status.Ran() && tokS == 0 {
		// A cell that ran has its rate; a blank one would show as a
		// Valid cell without a figure.
		return c, fmt.Errorf("a %s cell has no total_tok_s: give the rate it measured, or the status it ended with", c.Status)
	}
	if c.Phase == rundoc.PhasePrefill {
		c.PromptTokS, c.PromptTokSCI95 = tokS, tokSCI
	} else {
		c.TotalTokS, c.TotalTokSCI95 = tokS, tokSCI
	}
	return c, nil
}

// rowParser parses numeric fields, keeping the first error.
type rowParser struct {
	field func(string) string
	err   error
}

// int parses a non-negative integer up to max; blank is 0 unless required.
func (p *rowParser) int(name string, max int, required bool) int {
	s := p.field(name)
	if p.err != nil || (s == "" && !required) {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || !isDigits(s) || n < 0 || n > max {
		p.err = fmt.Errorf("%s %q is not a whole number between 0 and %d", name, s, max)
		return 0
	}
	return n
}

// float parses a finite, non-negative figure; blank is 0 (not measured).
func (p *rowParser) float(name string) float64 {
	return p.bounded(name, maxFigure, "")
}

// rate parses a rate in tok/s, within rundoc.MaxTokS (docs/reports.md:
// Importing); blank is 0 (not measured).
func (p *rowParser) rate(name string) float64 {
	return p.bounded(name, rundoc.MaxTokS, " tok/s")
}

// bounded parses a finite figure from 0 to bound; blank is 0. A plain
// decimal above the bound is refused as beyond it (unit words the bound),
// anything else as not a number.
func (p *rowParser) bounded(name string, bound float64, unit string) float64 {
	s := p.field(name)
	if p.err != nil || s == "" {
		return 0
	}
	if !isDecimal(s) {
		p.err = fmt.Errorf("%s %q is not a non-negative decimal number", name, s)
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v > bound {
		p.err = fmt.Errorf("%s %s is beyond the %g%s any measurement reaches: the file is damaged or holds no measurement there", name, s, bound, unit)
		return 0
	}
	return v
}

// diffPct parses a difference in percent, from −100 (the server counted
// nothing) up; blank is nil (not checked), never 0 (checked and equal).
func (p *rowParser) diffPct(name string) *float64 {
	s := p.field(name)
	if p.err != nil || s == "" {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < -100 || v > maxFigure {
		p.err = fmt.Errorf("%s %q is not a difference in percent from -100 up", name, s)
		return nil
	}
	return &v
}

// ParseStatus reads a cell status worded as in METHOD.md, ignoring case.
func ParseStatus(s string) (rundoc.Status, error) {
	for _, st := range cellStatuses {
		if strings.EqualFold(strings.TrimSpace(s), string(st)) {
			return st, nil
		}
	}
	return "", fmt.Errorf("status %q is not one of %s", s, statusList())
}

var cellStatuses = []rundoc.Status{
	rundoc.StatusValid, rundoc.StatusQueued, rundoc.StatusOverCapacity,
	rundoc.StatusExceedsLength, rundoc.StatusFailed, rundoc.StatusCancelled, rundoc.StatusUnreliable,
}

func statusList() string {
	names := make([]string, len(cellStatuses))
	for i, s := range cellStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// planFromCells reconstructs the plan axes from the cells. The window
// length is the measured window when every decode cell that ran reports the
// same one; max output is not in the file and stays 0 (unknown).
func planFromCells(cells []rundoc.Cell) rundoc.Plan {
	var p rundoc.Plan
	window := -1.0
	for _, c := range cells {
		switch c.Phase {
		case rundoc.PhasePrefill:
			p.PrefillContexts = insertSorted(p.PrefillContexts, c.Context)
		case rundoc.PhaseBurst:
			p.Contexts = insertSorted(p.Contexts, c.Context)
			p.Concurrency = insertSorted(p.Concurrency, c.Concurrency)
			p.Burst = rundoc.BurstAfter
		case rundoc.PhaseDecode:
			p.Contexts = insertSorted(p.Contexts, c.Context)
			p.Concurrency = insertSorted(p.Concurrency, c.Concurrency)
			if c.MeasuredS > 0 {
				switch window {
				case -1:
					window = c.MeasuredS
				case c.MeasuredS:
				default:
					window = 0
				}
			}
		}
	}
	if window > 0 {
		p.DurationS = window
	}
	if p.Burst != "" && !slices.ContainsFunc(cells, func(c rundoc.Cell) bool { return c.Phase == rundoc.PhaseDecode }) {
		p.Burst = rundoc.BurstOnly
	}
	return p
}

func insertSorted(xs []int, v int) []int {
	i, found := slices.BinarySearch(xs, v)
	if found {
		return xs
	}
	return slices.Insert(xs, i, v)
}

// applyReferenceName fills the run's name, GPU, model and engine from a
// file name of the form GPU_MODEL_ENGINE-VERSION.csv.
func applyReferenceName(run *rundoc.Run, name string) {
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	if name == "" || base == "." || base == "" {
		return
	}
	run.Name = base
	g := ParseReferenceName(base)
	if g.GPU != "" {
		run.Hardware = &hardware.Snapshot{GPUs: []hardware.GPU{{Name: g.GPU}}}
	}
	run.Server.Model = g.Model
	run.Server.Engine = g.Engine
	run.Server.Version = g.Version
}

// ReferenceName is what a reference file name says about its run.
type ReferenceName struct {
	GPU, Model, Engine, Version string
}

// ParseReferenceName splits a reference file's base name
// GPU_MODEL_ENGINE-VERSION (e.g. "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0")
// into a display GPU name ("RTX 3060 12GB"), the model, the engine and its
// version. Parts the name lacks are empty.
func ParseReferenceName(base string) ReferenceName {
	parts := strings.Split(base, "_")
	if len(parts) != 3 || slices.Contains(parts, "") {
		return ReferenceName{}
	}
	g := ReferenceName{GPU: gpuDisplayName(parts[0]), Model: parts[1], Engine: parts[2]}
	if i := strings.LastIndex(parts[2], "-"); i > 0 && i+1 < len(parts[2]) && unicode.IsDigit(rune(parts[2][i+1])) {
		g.Engine, g.Version = parts[2][:i], parts[2][i+1:]
	}
	return g
}

// gpuDisplayName turns a slug such as "rtx3060-12gb" or "rtx4060-ti-16gb"
// into "RTX 3060 12GB" / "RTX 4060 Ti 16GB". A series prefix of two or more
// letters is split from the model number (rtx3060 → RTX 3060), a one-letter
// one is not (h100 → H100, as NVIDIA writes it).
func gpuDisplayName(slug string) string {
	var words []string
	for _, w := range strings.Split(slug, "-") {
		if w == "" {
			continue
		}
		lower := strings.ToLower(w)
		switch {
		case lower == "ti":
			words = append(words, "Ti")
			continue
		case strings.HasSuffix(lower, "gb") && isDigits(lower[:len(lower)-2]):
			words = append(words, lower[:len(lower)-2]+"GB")
			continue
		}
		i := strings.IndexFunc(w, unicode.IsDigit)
		if i >= 2 && isDigits(w[i:]) {
			words = append(words, strings.ToUpper(w[:i]), w[i:])
			continue
		}
		words = append(words, strings.ToUpper(w))
	}
	return strings.Join(words, " ")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// decimalRE is a number as a spreadsheet or RigBench writes it: digits, an
// optional fraction and exponent. strconv.ParseFloat also reads hex floats
// ("0x1p4"), underscores and "Inf", which no measurement file holds.
var decimalRE = regexp.MustCompile(`^[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?$|^\.[0-9]+([eE][+-]?[0-9]+)?$`)

// isDecimal reports whether s is a plain decimal number.
func isDecimal(s string) bool { return decimalRE.MatchString(s) }
