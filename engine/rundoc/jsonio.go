package rundoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/hardware"
)

// MaxRunJSONBytes bounds what ReadRun reads. A full default plan (about 60
// cells with a sample a second over 30 s windows, server and GPU) is under
// 2 MiB of JSON; 64 MiB leaves room for long windows and many GPUs while
// keeping a hostile file from exhausting memory.
const MaxRunJSONBytes = 64 << 20

// Limits on the free-text fields of a run, so a shared file cannot fill
// the history or a view with megabytes of text. The same limits govern
// what a run saves (the CLI and app refuse longer user input, the runner
// cuts longer server text with CutText) and what an import accepts.
const (
	MaxNameLen  = 200
	MaxNotesLen = 64 << 10
	MaxTags     = 64
	MaxTagLen   = 64
	MaxTextLen  = 16 << 10 // any other string: reasons, commands, errors
	// MaxServerTextLen bounds what the server names itself: model id,
	// engine, version.
	MaxServerTextLen = 2 * MaxNameLen
	// MaxContextTokens bounds every context and max_model_len: 16M tokens,
	// far above any model.
	MaxContextTokens = 1 << 24
	maxConc          = 1 << 16
	maxFigure        = 1e15 // tok/s, ms, W, MHz, bytes as float
)

// Limits on the size of a run, far above what any real run has (a full
// default plan is about 60 cells over 10 contexts, with a sample a second
// per GPU), so an import cannot make a report or the history do work no
// real run needs. Each refusal names its limit.
const (
	// MaxCells is the most cells a run may hold.
	MaxCells = 10000
	// MaxContexts is the most distinct contexts (of cells, or in each
	// list of the plan), and MaxConcurrencies of concurrency levels.
	MaxContexts      = 1000
	MaxConcurrencies = 1000
	// MaxSamples is the most server or GPU samples one cell may hold: a
	// sample a second per GPU over an hour-long window on 8 GPUs is 28,800.
	MaxSamples = 100000
	// MaxGPUs is the most GPUs a hardware snapshot may list.
	MaxGPUs = 64
)

// WriteRun writes r as the rigbench.run/v1 JSON document (docs/run-json.md):
// two-space indented, fields in the order of the Go types, times in UTC,
// ending in a newline. The output depends only on r, so export → ReadRun →
// WriteRun gives the same bytes. r is not modified.
func WriteRun(w io.Writer, r *Run) error {
	if r == nil {
		return errors.New("no run to write")
	}
	doc := normalized(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	// The run's text is data, not HTML: keep "<" and "&" readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode run %s: %w", r.UUID, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// normalized returns a shallow copy of r in the written form: times in UTC
// (the zone says nothing a reader needs, and one spelling keeps exports
// byte-stable) and empty lists as [] rather than null.
func normalized(r *Run) *Run {
	doc := *r
	if doc.Schema == "" {
		doc.Schema = Schema
	}
	doc.CreatedAt = doc.CreatedAt.UTC()
	doc.FinishedAt = doc.FinishedAt.UTC()
	if doc.Cells == nil {
		doc.Cells = []Cell{}
	} else {
		doc.Cells = slices.Clone(doc.Cells)
		for i := range doc.Cells {
			doc.Cells[i].StartedAt = doc.Cells[i].StartedAt.UTC()
			doc.Cells[i].WindowStart = doc.Cells[i].WindowStart.UTC()
		}
	}
	if doc.Hardware != nil && doc.Hardware.GPUs == nil {
		hw := *doc.Hardware
		hw.GPUs = []hardware.GPU{}
		doc.Hardware = &hw
	}
	return &doc
}

// ReadRun reads one rigbench.run/v1 document, at most MaxRunJSONBytes, and
// validates it (ValidateRun). Errors name the problem in one sentence, e.g.
// `cells[3] (decode 16K×8): status "Great" is not one of Valid, …`.
func ReadRun(r io.Reader) (*Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxRunJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the run file: %w", err)
	}
	if len(data) > MaxRunJSONBytes {
		return nil, fmt.Errorf("the run file is larger than %d MiB; is it really a RigBench run?", MaxRunJSONBytes>>20)
	}
	// A BOM costs nothing to skip (some editors write one); JSON has none.
	data = bytes.TrimPrefix(data, utf8BOM)
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return nil, errors.New("the file holds a JSON list, not one run: RigBench reads one run per file, as its JSON export writes it")
	}
	// Look at the schema first, so a file of another kind or version gets
	// a message about that rather than about its first odd field.
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&probe); err != nil {
		return nil, fmt.Errorf("the file is not a RigBench run (not valid JSON: %v)", err)
	}
	switch {
	case probe.Schema == nil:
		return nil, errors.New(`the file is not a RigBench run: it has no "schema" field`)
	case *probe.Schema != Schema:
		return nil, fmt.Errorf("the file's schema is %q, this RigBench reads %q; update RigBench or export the run again", *probe.Schema, Schema)
	}
	// encoding/json takes the last of two equal keys and matches keys
	// without regard to case; a run file has one spelling of each key, so
	// anything else is refused before decoding (and strings and lists
	// beyond every limit are refused before they are held twice).
	if err := checkStructure(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var run Run
	if err := dec.Decode(&run); err != nil {
		return nil, fmt.Errorf("the run file is malformed: %v", err)
	}
	// Decoder.More is false before a stray '}' or ']', so the rest of the
	// file is looked at directly: only white space may follow the run.
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("the run file holds more than one JSON value (%q follows the run at byte %d); export one run per file", clip(rest, 10), len(data)-len(rest))
	}
	if s := run.Source; s != nil && len(s.File) > 0 {
		// Kept compact, as the import stored it, whatever the indentation
		// of the file it came back in.
		var b bytes.Buffer
		if json.Compact(&b, s.File) == nil {
			s.File = b.Bytes()
		}
	}
	compactQuality(run.Quality)
	if err := ValidateRun(&run); err != nil {
		return nil, err
	}
	return &run, nil
}

// ValidateRun checks what a reader of r relies on: the schema, a UUID, a
// known status and origin, a creation time, sane plan axes, and cells with
// known phases and statuses, unique (phase, context, concurrency) and
// finite, non-negative figures within generous bounds. It reports the first
// problem found.
func ValidateRun(r *Run) error {
	v := validator{}
	v.run(r)
	return v.err
}

// validator collects the first problem found.
type validator struct{ err error }

func (v *validator) fail(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf(format, args...)
	}
}

func (v *validator) run(r *Run) {
	if r.Schema != Schema {
		v.fail("schema is %q, want %q", r.Schema, Schema)
	}
	// Only the canonical lower-case form, so one run has one spelling and
	// imports stay idempotent by UUID.
	if u, err := uuid.Parse(r.UUID); err != nil || u.String() != r.UUID {
		v.fail("uuid %q is not a lower-case UUID like 123e4567-e89b-12d3-a456-426614174000", r.UUID)
	}
	switch r.Status {
	case RunRunning, RunComplete, RunCancelled, RunInterrupted, RunFailed:
	default:
		v.fail("run status %q is not one of running, complete, cancelled, interrupted, failed", r.Status)
	}
	switch r.Origin {
	case "", OriginMeasured, OriginImported:
	default:
		v.fail("origin %q is not %q or %q", r.Origin, OriginMeasured, OriginImported)
	}
	if r.CreatedAt.IsZero() {
		v.fail("created_at is missing")
	}
	if !r.FinishedAt.IsZero() && r.FinishedAt.Before(r.CreatedAt) {
		v.fail("finished_at %s is before created_at %s", r.FinishedAt, r.CreatedAt)
	}
	v.labels(r.Name, r.Tags, r.Notes)
	v.text("error", r.Error, MaxTextLen)
	v.plan(&r.Plan)
	v.server(&r.Server)
	if r.Launch != nil {
		v.launch(r.Launch)
	}
	if r.Hardware != nil {
		v.hardware(r.Hardware)
	}
	if r.Rig != nil {
		v.rig(r.Rig)
	}
	if r.Source != nil {
		v.source(r.Source)
	}
	if r.Quality != nil {
		v.quality(r.Quality)
	}
	if len(r.Cells) > MaxCells {
		v.fail("the run has %d cells; RigBench reads at most %d (a full plan has about 60)", len(r.Cells), MaxCells)
		return
	}
	contexts := map[int]bool{}
	for i := range r.Cells {
		contexts[r.Cells[i].Context] = true
	}
	if len(contexts) > MaxContexts {
		v.fail("the run's cells have %d distinct contexts; RigBench reads at most %d (a full plan has about 10)", len(contexts), MaxContexts)
		return
	}
	seen := map[string]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		v.cell(i, c)
		key := fmt.Sprint(c.Phase, c.Context, "x", c.Concurrency)
		if j, dup := seen[key]; dup {
			v.fail("cells[%d] repeats cells[%d] (%s)", i, j, c.Label())
		}
		seen[key] = i
	}
}

// labels checks the user's words of a run (CheckLabels).
func (v *validator) labels(name string, tags []string, notes string) {
	v.text("name", name, MaxNameLen)
	v.text("notes", notes, MaxNotesLen)
	if len(tags) > MaxTags {
		v.fail("tags has %d entries, at most %d are allowed", len(tags), MaxTags)
	}
	for i, t := range tags {
		if strings.TrimSpace(t) == "" {
			v.fail("tags[%d] is empty", i)
		}
		if slices.Contains(tags[:i], t) {
			v.fail("tags[%d] repeats the tag %q", i, t)
		}
		v.text(fmt.Sprintf("tags[%d]", i), t, MaxTagLen)
	}
}

// count refuses a list longer than max.
func (v *validator) count(field string, n, max int) {
	if n > max {
		v.fail("%s has %d entries; RigBench reads at most %d", field, n, max)
	}
}

func (v *validator) text(field, s string, max int) {
	if len(s) > max {
		v.fail("%s is %d bytes long, at most %d are allowed", field, len(s), max)
	}
}

func (v *validator) plan(p *Plan) {
	v.count("plan.contexts", len(p.Contexts), MaxContexts)
	v.count("plan.prefill_contexts", len(p.PrefillContexts), MaxContexts)
	v.count("plan.concurrency", len(p.Concurrency), MaxConcurrencies)
	for i, c := range p.Contexts {
		v.intRange(fmt.Sprintf("plan.contexts[%d]", i), c, 0, MaxContextTokens)
	}
	for i, c := range p.PrefillContexts {
		v.intRange(fmt.Sprintf("plan.prefill_contexts[%d]", i), c, 0, MaxContextTokens)
	}
	for i, n := range p.Concurrency {
		v.intRange(fmt.Sprintf("plan.concurrency[%d]", i), n, 1, maxConc)
	}
	v.num("plan.duration_s", p.DurationS)
	v.intRange("plan.max_output", p.MaxOutput, 0, MaxContextTokens)
	v.intRange("plan.kv_capacity_override", p.KVCapacityOverride, 0, math.MaxInt32)
	v.num("plan.sim_speed", p.SimSpeed)
	if r := p.AcceptLenRef; r != 0 && !(r >= 1 && r <= MaxAcceptLength) {
		v.fail("plan.accept_len_ref is %v, want 1 to %d tokens per step", r, MaxAcceptLength)
	}
}

func (v *validator) server(s *Server) {
	switch s.KVCapacitySource {
	case "", KVSourceMetrics, KVSourceLog, KVSourceUser, KVSourceUnknown, KVSourceProps, KVSourceServerInfo:
	default:
		v.fail("server.kv_capacity_source %q is not one of metrics, log, user, unknown, props, server_info", s.KVCapacitySource)
	}
	v.intRange("server.max_model_len", s.MaxModelLen, 0, MaxContextTokens)
	v.intRange("server.kv_capacity_tokens", s.KVCapacityTokens, 0, math.MaxInt32)
	for _, f := range []struct{ name, s string }{{"server.model", s.Model}, {"server.engine", s.Engine}, {"server.version", s.Version}} {
		v.text(f.name, f.s, MaxServerTextLen)
	}
	v.serverFacts(s.ServerFacts)
}

func (v *validator) launch(l *Launch) {
	v.text("launch.image", l.Image, MaxTextLen)
	v.text("launch.model", l.Model, MaxTextLen)
	v.text("launch.serve_command", l.ServeCommand, MaxTextLen)
	v.text("launch.docker_command", l.DockerCommand, MaxTextLen)
	v.text("launch.args", strings.Join(l.Args, " "), MaxTextLen)
	v.text("launch.gpus", l.GPUs, MaxNameLen)
	v.text("launch.compile_cache", l.CompileCache, MaxTextLen)
	if st := l.Startup; st != nil {
		v.num("launch.startup.load_s", st.LoadS)
		v.num("launch.startup.weights_s", st.WeightsS)
		v.num("launch.startup.compile_s", st.CompileS)
		v.num("launch.startup.graph_capture_s", st.GraphCaptureS)
	}
	if l.Cluster != nil {
		v.cluster(l.Cluster)
	}
}

func (v *validator) rig(r *Rig) {
	switch r.Kind {
	case RigLocal, RigSSH, RigContext:
	default:
		v.fail("rig.kind %q is not one of local, ssh, context", r.Kind)
	}
	if r.Name == "" {
		v.fail("rig.name is missing")
	}
	v.text("rig.name", r.Name, MaxNameLen)
}

func (v *validator) hardware(h *hardware.Snapshot) {
	v.count("hardware.gpus", len(h.GPUs), MaxGPUs)
	for _, f := range []struct{ name, s string }{
		{"hardware.driver_version", h.DriverVersion},
		{"hardware.cuda_driver_version", h.CUDADriverVersion}, {"hardware.os.name", h.OS.Name},
		{"hardware.os.version", h.OS.Version}, {"hardware.os.kernel", h.OS.Kernel}, {"hardware.os.arch", h.OS.Arch},
	} {
		v.text(f.name, f.s, MaxNameLen)
	}
	v.text("hardware.gpu_absent_reason", h.GPUAbsentReason, MaxTextLen)
	for i, g := range h.GPUs {
		name := fmt.Sprintf("hardware.gpus[%d]", i)
		v.text(name+".name", g.Name, MaxNameLen)
		v.text(name+".uuid", g.UUID, MaxNameLen)
		v.text(name+".compute_capability", g.ComputeCapability, MaxNameLen)
		v.count(name+".unsupported", len(g.Unsupported), MaxTags)
		for j, u := range g.Unsupported {
			v.text(fmt.Sprintf("%s.unsupported[%d]", name, j), u, MaxTagLen)
		}
		v.num(name+".power_limit_w", g.PowerLimitW)
		v.num(name+".power_limit_default_w", g.PowerLimitDefaultW)
		v.num(name+".power_limit_max_w", g.PowerLimitMaxW)
		v.num(name+".memory_bandwidth_gbs", g.MemoryBandwidthGBs)
		for _, n := range []int{g.Index, g.PCIeGen, g.PCIeGenMax, g.PCIeWidth, g.PCIeWidthMax, g.MemoryBusWidthBits, g.MemoryClockMaxMHz} {
			v.intRange(name, n, 0, math.MaxInt32)
		}
	}
	v.text("hardware.cpu.model", h.CPU.Model, MaxNameLen)
}

func (v *validator) cell(i int, c *Cell) {
	where := fmt.Sprintf("cells[%d] (%s)", i, c.Label())
	switch c.Phase {
	case PhasePrefill, PhaseDecode, PhaseBurst:
	default:
		v.fail("cells[%d]: phase %q is not prefill, decode or burst", i, c.Phase)
		return
	}
	switch c.Status {
	case StatusValid, StatusQueued, StatusOverCapacity, StatusExceedsLength, StatusFailed, StatusCancelled, StatusUnreliable:
	default:
		v.fail("%s: status %q is not one of Valid, Requests queued, Over capacity, Exceeds model length, Failed, Cancelled, Unreliable", where, c.Status)
	}
	v.intRange(where+": context", c.Context, 0, MaxContextTokens)
	v.intRange(where+": concurrency", c.Concurrency, 1, maxConc)
	v.checks(where, c.CellChecks)
	v.spec(where, c.CellSpec)
	for _, n := range []struct {
		name string
		v    int
	}{{"prompt_tokens", c.PromptTokens}, {"completed_requests", c.CompletedRequests}, {"output_tokens", c.OutputTokens}, {"chunk_tokens", c.ChunkTokens}} {
		v.intRange(where+": "+n.name, n.v, 0, math.MaxInt32)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"ttft_ms", c.TTFTMs}, {"tbt_ms", c.TBTMs}, {"ttft_p90_ms", c.TTFTP90Ms}, {"ttft_p99_ms", c.TTFTP99Ms},
		{"tbt_p90_ms", c.TBTP90Ms}, {"tbt_p99_ms", c.TBTP99Ms}, {"avg_active", c.AvgActive},
		{"measured_s", c.MeasuredS}, {"energy_j_per_token", c.EnergyJPerToken}, {"roofline_pct", c.RooflinePct},
		{"per_request_tok_s_window", c.PerRequestTokSWindow}, {"tbt_ms_window", c.TBTMsWindow},
	} {
		v.num(where+": "+f.name, f.v)
	}
	// Rates have a physical bound of their own, far below maxFigure
	// (MaxTokS).
	v.rate(where+": prompt_tok_s", c.PromptTokS)
	v.rate(where+": total_tok_s", c.TotalTokS)
	v.rate(where+": per_request_tok_s", c.PerRequestTokS)
	v.burst(where, c.CellBurst)
	switch c.TokenCountSource {
	case "", TokensContinuousUsage, TokensFinalUsage, TokensChunks:
	default:
		v.fail("%s: token_count_source %q is not one of continuous_usage, final_usage, chunks", where, c.TokenCountSource)
	}
	v.text(where+": reason", c.Reason, MaxTextLen)
	v.count(where+": server_samples", len(c.ServerSamples), MaxSamples)
	v.count(where+": gpu_samples", len(c.GPUSamples), MaxSamples)
	for j, s := range c.ServerSamples {
		// The baseline sample is taken just before the window opens, so
		// its t is negative (a few milliseconds).
		if math.IsNaN(s.T) || math.Abs(s.T) > maxFigure {
			v.fail("%s: server_samples[%d] t is %v, want a finite number of seconds", where, j, s.T)
		}
		for _, f := range []*float64{&s.Running, &s.Waiting, s.KVUsage, s.PrefixCacheQueries, s.PrefixCacheHits, s.Preemptions} {
			if f != nil {
				v.num(fmt.Sprintf("%s: server_samples[%d]", where, j), *f)
			}
		}
	}
	for j, s := range c.GPUSamples {
		for _, f := range []float64{s.T, float64(s.GPU), s.PowerW, s.SMClockMHz, s.MemClockMHz, s.TempC, s.UtilGPU, s.UtilMem, s.EnergyJ} {
			v.num(fmt.Sprintf("%s: gpu_samples[%d]", where, j), f)
		}
	}
	if s := c.ServerStats; s != nil {
		for _, f := range []float64{float64(s.Samples), s.RunningMean, s.WaitingMax, s.KVUsageMean, s.KVUsageMax, s.PrefixHitRate, s.Preemptions} {
			v.num(where+": server_stats", f)
		}
	}
	if s := c.GPUStats; s != nil {
		for _, f := range []float64{float64(s.Samples), s.PowerMeanW, s.PowerMaxW, s.SMClockMeanMHz, s.SMClockMaxMHz, s.MemClockMeanMHz, s.TempMeanC, s.TempMaxC, s.UtilGPUMean, s.UtilMemMean, s.EnergyMeanW} {
			v.num(where+": gpu_stats", f)
		}
		for j, p := range s.PerGPU {
			for _, f := range []float64{float64(p.GPU), p.PowerMeanW, p.PowerMaxW, p.TempMaxC, p.EnergyMeanW, p.EnergyJPerToken} {
				v.num(fmt.Sprintf("%s: gpu_stats.per_gpu[%d]", where, j), f)
			}
		}
	}
}

// num requires a finite figure in [0, maxFigure]. Temperatures below 0 °C
// do not occur on a running GPU, so one bound serves every figure.
func (v *validator) num(field string, f float64) {
	if math.IsNaN(f) || f < 0 || f > maxFigure {
		v.fail("%s is %v, want a number from 0 to %g", field, f, maxFigure)
	}
}

func (v *validator) intRange(field string, n, lo, hi int) {
	if n < lo || n > hi {
		v.fail("%s is %d, want %d to %d", field, n, lo, hi)
	}
}
