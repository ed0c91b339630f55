package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/rigbench/rigbench/engine/rundoc"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/client"
)

// Runner runs one plan against one server (METHOD.md end to end). Fill the
// fields, then call Run once.
type Runner struct {
	// Client talks to the server; size its pool with
	// client.WithConcurrency(max concurrency of the plan).
	Client *client.Client
	// Model to benchmark; "" takes the first model the server lists.
	Model string
	// Plan to run; ContextMax entries resolve against max_model_len.
	Plan rundoc.Plan
	// Observer receives progress events (nil: none).
	Observer rundoc.Observer
	// Telemetry samples GPUs during windows (nil: no GPU telemetry).
	Telemetry Telemetry
	// KVCapacityFromLog is the capacity a launcher read from the server's
	// start-up log, used when /metrics does not give it.
	KVCapacityFromLog int
	// SlotsFromLaunch is how many requests the server runs at once by its
	// launch flags (vLLM's --max-num-seqs), 0 when unknown; a server that
	// says it itself (llama-server's total_slots) is believed first.
	SlotsFromLaunch int
	// Roofline is what the start-up told of the bytes each decode step
	// reads and the card's peak bandwidth (nil: unknown); it is recorded
	// with the server, and each decode cell gets its RooflinePct from it.
	Roofline *rundoc.Roofline
	// CachedWeightsGiB, when set, is asked for the served model's size
	// (GiB) when Roofline lacks the weights, once the model is known; 0
	// means not found (session.HFCacheWeightsGiB reads the Hugging Face
	// cache).
	CachedWeightsGiB func(model string) float64
	// CachedKVBytesPerToken, when set, is asked for the KV bytes one token
	// of the served model takes when Roofline lacks them, from its config
	// (session.HFCacheKVBytesPerToken); 0 means not found.
	CachedKVBytesPerToken func(model string) float64
	// Doc is the document to fill: the caller may preset UUID, Name,
	// Hardware, Launch, Simulated. Nil: a fresh document.
	Doc *rundoc.Run
	// MetricsInterval is the /metrics sampling period in windows
	// (default 1 s, METHOD.md: Server-side samples).
	MetricsInterval time.Duration
	// MaxFailedInARow stops the run after this many Failed cells in a row
	// (default 2): the server has most likely gone.
	MaxFailedInARow int
	// Now is the clock for elapsed time and ETA (default time.Now).
	Now func() time.Time
	// ClientCPU, when set, reads the CPU time this process has used so far
	// (ProcessCPU); each decode window then records RigBench's own share of
	// the machine's cores (CellWindow.ClientCPUPct), the evidence of a
	// client-bound cell. Left nil where the server runs in this process
	// (the demo's simulator), whose work would count as the client's.
	ClientCPU func() time.Duration
	// Cores is how many cores the client's share is of (default
	// runtime.NumCPU()).
	Cores int
	// FirstTokenTimeout is the least time, in the served card's time, a
	// warm-up or prefill request may wait for its token before the cell
	// fails as stuck (default DefaultFirstTokenTimeout; the limit grows with
	// the prompt, see firstTokenBudget).
	FirstTokenTimeout time.Duration
	// StallTimeout is how long, in the served card's time, every stream of
	// a decode cell may go without a token before the cell fails as
	// stalled and the run stops (default DefaultStallTimeout; requests
	// waiting for a first token get their prefill's time on top, see
	// stallLimit). It is measured on Now.
	StallTimeout time.Duration
	// Starved, when set, reads how long this process has so far been kept
	// from running (a loaded machine's freezes, which the stall check does
	// not count as a server's silence); nil: each decode window measures
	// it with a lag meter (starve.go).
	Starved func() time.Duration
	// Exited, when set, is closed when a launched server's process ended
	// (its container exited): the run knows at once, instead of from
	// requests that fail.
	Exited <-chan struct{}
	// ExitReport, when set, says why the launched server ended: its exit
	// code and what the start-up failure recognisers make of its last log
	// lines ("exit code 137; the GPU ran out of memory …").
	ExitReport func() string
	// LinkLost, when set, says whether the connection to the server's rig
	// (an SSH tunnel, engine/rig) ended: nil while it is up, the sentence
	// saying so when it dropped. It is asked only when Exited closes or a
	// probe finds the server gone, since a dropped tunnel ends the
	// container's log stream and every request alike; the run then ends
	// as for a server that is gone, with that sentence as the evidence.
	LinkLost func() error
	// Kept are cells of an earlier attempt at this run (Resume): a cell of
	// the plan with a kept result (KeepOnResume) is not measured again but
	// kept as it is, in its place.
	Kept []rundoc.Cell

	// gone is set once the server is known to be gone (gone.go).
	gone *goneMark
	// cellErr is the error that failed the cell being measured, nil when
	// none did (FailuresError.Unreachable reads it).
	cellErr error
	// was is the document's server before this attempt (a resume's).
	was rundoc.Server

	prompts *Prompts
	reqSeq  int
	// docs reuses prompts across the decode cells of an adaptive plan
	// (reuse.go); nil for fixed-window plans, whose cells send fresh ones.
	docs *streamDocs
	// shared holds each context's document under the shared prompt
	// policy (shared.go).
	shared sharedDocs
	start  time.Time
	// cellETA is the estimate, when the current cell started, of the time
	// left including it; progress events count it down.
	cellETA   time.Duration
	cellStart time.Time
	// restETA is the estimate for the cells after the current one.
	restETA time.Duration
	// Servers that refuse vLLM's extra request fields (strict OpenAI
	// clones) get requests without them; see probeOptions.
	noMinTokens, noContinuousUsage bool
	// modelID is the model id requests send (the server's own).
	modelID string
	// prefillWarm is set once this run sent its hidden prefill warm-up
	// (warm.go): every prefill cell after it measures a warm server.
	prefillWarm bool
}

// ErrTooManyFailures is returned when MaxFailedInARow cells failed in a row.
// The error returned is a *FailuresError, which matches it with errors.Is.
var ErrTooManyFailures = errors.New("cells failed in a row")

// FailuresError is why a run stopped after MaxFailedInARow cells failed in a
// row: how many, the last cell's reason, and whether that cell's failure was
// that nothing answered at the endpoint (a *client.UnreachableError), so a
// front end can say "the server stopped answering" without reading the text.
type FailuresError struct {
	// Count is the number of cells that failed in a row.
	Count int
	// Last is the last failed cell's reason.
	Last string
	// Unreachable says the last cell failed because the server could not
	// be reached.
	Unreachable bool
	// HTTPStatus is the status the server answered the last cell's failed
	// request with (0: it did not answer one): such a server is running,
	// so the sentence does not ask whether it is.
	HTTPStatus int
}

func (e *FailuresError) Error() string {
	why := "is the server still running?"
	switch {
	case e.Unreachable || e.HTTPStatus == 0:
	case e.HTTPStatus == 429:
		why = "the server is running but limits how many requests it takes: lower the concurrency, or raise its limit"
	case e.HTTPStatus == 503:
		why = "the server is running but says it is unavailable (overloaded, or still loading): run again once it answers"
	default:
		why = fmt.Sprintf("the server is running but answers HTTP %d: its log says why", e.HTTPStatus)
	}
	return fmt.Sprintf("%d %v (last: %s); stopping: %s", e.Count, ErrTooManyFailures, e.Last, why)
}

// Is makes errors.Is(err, ErrTooManyFailures) hold.
func (e *FailuresError) Is(target error) bool { return target == ErrTooManyFailures }

// Run measures the plan and returns the run document. The document is
// returned even with an error, holding every cell finished so far, with
// Status cancelled (ctx cancelled), failed, or complete.
func (r *Runner) Run(ctx context.Context) (*rundoc.Run, error) {
	r.defaults()
	run := r.Doc
	run.Schema = rundoc.Schema
	if run.UUID == "" {
		run.UUID = uuid.NewString()
	}
	if run.CreatedAt.IsZero() {
		run.CreatedAt = r.Now().UTC().Truncate(time.Second)
	}
	run.Origin = rundoc.OriginMeasured
	run.Status, run.Error = rundoc.RunRunning, ""
	// A resume of a run cancelled before it measured anything measures it
	// now: its name loses the mark, which the end below gives back if it
	// is cancelled again before a cell.
	run.Name = strings.TrimSuffix(run.Name, rundoc.NothingMeasured)
	r.was = run.Server // what a resumed run measured before (checkResume)
	run.Cells = nil
	err := r.run(ctx, run)
	run.FinishedAt = r.Now().UTC().Truncate(time.Second)
	switch {
	case err == nil:
		run.Status = rundoc.RunComplete
	case ctx.Err() != nil:
		run.Status, err = rundoc.RunCancelled, ctx.Err()
		if !rundoc.MeasuredAny(run.Cells) && run.Name != "" {
			run.Name = rundoc.MarkNothingMeasured(run.Name)
		}
	default:
		run.Status, run.Error = rundoc.RunFailed, err.Error()
	}
	r.emit(rundoc.Event{Kind: rundoc.EventRunDone, Run: run, Index: len(run.Cells), Total: len(run.Cells)})
	return run, err
}

func (r *Runner) defaults() {
	if r.Doc == nil {
		r.Doc = &rundoc.Run{}
	}
	if r.MetricsInterval <= 0 {
		r.MetricsInterval = time.Second
	}
	if r.MaxFailedInARow <= 0 {
		r.MaxFailedInARow = 2
	}
	if r.FirstTokenTimeout <= 0 {
		r.FirstTokenTimeout = DefaultFirstTokenTimeout
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.StallTimeout <= 0 {
		r.StallTimeout = DefaultStallTimeout
	}
	if r.Observer == nil {
		r.Observer = rundoc.ObserverFunc(func(rundoc.Event) {})
	}
}

func (r *Runner) emit(e rundoc.Event) {
	// What observers save (the history writes the run at its start and each
	// cell as it ends) is cut to the limits an import applies, so every
	// saved run imports again: server text, error messages, absurd counts.
	if e.Kind != rundoc.EventCellProgress && e.Kind != rundoc.EventRunProgress && e.Run != nil {
		rundoc.Fit(e.Run)
	}
	if !r.start.IsZero() {
		e.Elapsed = r.Now().Sub(r.start)
	}
	if e.Kind == rundoc.EventCellProgress {
		// Count down through the current cell, but a cell that overruns
		// its estimate (a slow warm-up) leaves at least the cells after it.
		e.ETA = max(r.restETA, r.cellETA-r.Now().Sub(r.cellStart))
	}
	r.Observer.Observe(e)
}

// tooLongMessage names, once before the run, the contexts whose cells the
// server's max_model_len leaves out (DecodeStatus, PrefillStatus: Exceeds model
// length), so a plan with one context too many runs the rest instead of
// being refused (issue 30 item 5); "" when none.
func tooLongMessage(p rundoc.Plan, l Limits) string {
	var parts []string
	var decode, prefill []string
	for _, c := range p.Contexts {
		if len(p.Concurrency) > 0 && DecodeStatus(c, p.Concurrency[0], p.MaxOutput, l) == rundoc.StatusExceedsLength {
			decode = append(decode, rundoc.ContextLabel(c))
		}
	}
	for _, c := range p.PrefillContexts {
		if PrefillStatus(c, l) == rundoc.StatusExceedsLength {
			prefill = append(prefill, rundoc.ContextLabel(c))
		}
	}
	if len(decode) > 0 {
		parts = append(parts, fmt.Sprintf("decode context %s (with max output %d)", strings.Join(decode, ", "), p.MaxOutput))
	}
	if len(prefill) > 0 {
		parts = append(parts, "prefill context "+strings.Join(prefill, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("the server's max_model_len (%s) is too short for %s: those cells are Exceeds model length, the rest run",
		rundoc.ContextLabel(l.MaxModelLen), strings.Join(parts, "; "))
}

// LlamaPoolUnknown is what a run against llama-server says when it has no
// KV capacity to plan with.
const LlamaPoolUnknown = "llama-server does not report its KV pool; pass --kv-capacity (its -c; KV capacity in the app) to predict over-capacity cells"

// cellSpec is one cell to run, in order.
type cellSpec struct {
	phase   rundoc.Phase
	context int
	n       int
}

func (r *Runner) run(ctx context.Context, run *rundoc.Run) error {
	r.start = r.Now()
	plan, err := r.prepare(ctx, run)
	if err != nil {
		return err
	}
	specs := cellSpecs(plan)
	r.docs, r.shared, r.prefillWarm = nil, sharedDocs{}, false
	if plan.Adaptive() && plan.PromptPolicy() == rundoc.PromptsUnique {
		r.docs = &streamDocs{}
	}
	r.emit(rundoc.Event{Kind: rundoc.EventRunStarted, Run: run, Total: len(specs), ETA: r.eta(run, specs, 0)})
	if len(r.Kept) > 0 {
		kept := 0
		for _, s := range specs {
			if _, ok := r.kept(s); ok {
				kept++
			}
		}
		r.emit(rundoc.Event{Kind: rundoc.EventRunProgress, Run: run, Total: len(specs),
			Message: fmt.Sprintf("resuming: %d of %d cells are kept as measured, %d to measure", kept, len(specs), len(specs)-kept)})
	}

	failedInARow := 0
	overCapacityAt := map[int]int{} // context → smallest N found over capacity at run time
	r.gone = nil
	for i := range specs {
		if kept, ok := r.kept(specs[i]); ok {
			run.Cells = append(run.Cells, kept)
			noteOverCapacity(overCapacityAt, &kept)
			continue
		}
		if ev := r.serverGone(ctx); ev != nil && ctx.Err() == nil {
			r.gone = &goneMark{evidence: ev, where: r.betweenCells(run, specs, i)}
			return r.goneError(run, specs, "")
		}
		cell := r.runCell(ctx, run, specs, i, overCapacityAt)
		if dropped := rundoc.DropNonFinite(&cell); len(dropped) > 0 {
			// A number JSON cannot hold would lose the whole run at its save.
			addNote(&cell, "left out as not finite numbers: "+strings.Join(dropped, ", "))
		}
		run.Cells = append(run.Cells, cell)
		r.emit(rundoc.Event{Kind: rundoc.EventCellDone, Run: run, Cell: &run.Cells[len(run.Cells)-1], Index: i, Total: len(specs),
			ETA: r.eta(run, specs, i+1)})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if r.gone != nil {
			return r.goneError(run, specs, cell.Label())
		}
		if cell.Status == rundoc.StatusFailed {
			failedInARow++
			if failedInARow >= r.MaxFailedInARow {
				var (
					unreachable *client.UnreachableError
					he          *client.HTTPError
				)
				fe := &FailuresError{Count: failedInARow, Last: cell.Reason, Unreachable: errors.As(r.cellErr, &unreachable)}
				if errors.As(r.cellErr, &he) {
					fe.HTTPStatus = he.Status
				}
				return fe
			}
		} else {
			failedInARow = 0
		}
	}
	return nil
}

// prepare learns the server's facts, resolves and checks the plan against
// them, and calibrates prompt lengths, before the first cell.
func (r *Runner) prepare(ctx context.Context, run *rundoc.Run) (rundoc.Plan, error) {
	srv, d, err := discover(ctx, r.Client, r.Model, r.KVCapacityFromLog, r.Plan.KVCapacityOverride)
	if err != nil {
		return rundoc.Plan{}, err
	}
	r.modelID = d.modelID
	if srv.Slots == 0 && r.SlotsFromLaunch > 0 && r.SlotsFromLaunch <= rundoc.MaxConcurrency {
		srv.Slots = r.SlotsFromLaunch
	}
	srv.Roofline = r.roofline(srv.Model)
	run.Server = srv
	if err := r.checkResume(srv); err != nil {
		return rundoc.Plan{}, err
	}
	if srv.Personality == string(client.PersonalityLlama) && srv.KVCapacityTokens == 0 {
		// Said once, with the fix (issue 28 item 1): llama-server's answers
		// give each slot's context and the slots, never the pool.
		r.emit(rundoc.Event{Kind: rundoc.EventRunProgress, Run: run, Message: LlamaPoolUnknown})
	}
	plan := r.Plan.Resolve(srv.MaxModelLen)
	if srv.MaxModelLen <= 0 && (slices.Contains(r.Plan.Contexts, rundoc.ContextMax) || slices.Contains(r.Plan.PrefillContexts, rundoc.ContextMax)) {
		// Said, not silent (issue 18): "max" needs the server's context length.
		r.emit(rundoc.Event{Kind: rundoc.EventRunProgress, Run: run,
			Message: "the server does not report its context length, so the context \"max\" is left out of the plan"})
	}
	// Every window RigBench measures now opens at steady state; the
	// plan records it, so older runs (first send) keep saying theirs.
	plan.WindowOpens = rundoc.OpensSteady
	if plan.Prompts == "" {
		plan.Prompts = rundoc.PromptsShared
	}
	if plan.SimSpeed == 0 && d.speed > 1 {
		plan.SimSpeed = d.speed
	}
	if err := plan.Validate(); err != nil {
		return rundoc.Plan{}, err
	}
	if msg := tooLongMessage(plan, ServerLimits(srv)); msg != "" {
		r.emit(rundoc.Event{Kind: rundoc.EventRunProgress, Run: run, Message: msg})
	}
	run.Plan = plan
	if srv.Engine == "simulated" || d.simulated {
		run.Simulated = true
	}
	if err := r.probeOptions(ctx, run); err != nil {
		return rundoc.Plan{}, err
	}
	if err := r.calibrate(ctx, run); err != nil {
		return rundoc.Plan{}, err
	}
	return plan, nil
}

// cellSpecs lists the plan's cells in the order they run. A fixed-window
// plan runs the seed tool's order: prefill cells, then the decode matrix
// row by row. An adaptive plan runs context by context in ascending order,
// each context's prefill cell just before its decode row, so that the
// prompts the prefill cell sent are still cached when its decode cells
// reuse them (reuse.go). Burst cells (METHOD.md: Burst cells) take the
// decode rows' place (BurstOnly) or follow the whole matrix, a row per
// context (BurstAfter).
func cellSpecs(plan rundoc.Plan) (specs []cellSpec) {
	row := func(phase rundoc.Phase, c int) {
		for _, n := range plan.Concurrency {
			specs = append(specs, cellSpec{phase, c, n})
		}
	}
	decodeRow := func(c int) { row(rundoc.PhaseDecode, c) }
	if plan.Burst == rundoc.BurstOnly {
		decodeRow = func(c int) { row(rundoc.PhaseBurst, c) }
	}
	if plan.Burst == rundoc.BurstAfter {
		// Deferred: both orders below return their matrix, and the burst
		// rows go after either.
		defer func() {
			for _, c := range plan.Contexts {
				row(rundoc.PhaseBurst, c)
			}
		}()
	}
	if !plan.Adaptive() {
		for _, c := range plan.PrefillContexts {
			specs = append(specs, cellSpec{rundoc.PhasePrefill, c, 1})
		}
		for _, c := range plan.Contexts {
			decodeRow(c)
		}
		return specs
	}
	contexts := slices.Concat(plan.PrefillContexts, plan.Contexts)
	slices.Sort(contexts)
	for _, c := range slices.Compact(contexts) {
		if slices.Contains(plan.PrefillContexts, c) {
			specs = append(specs, cellSpec{rundoc.PhasePrefill, c, 1})
		}
		if slices.Contains(plan.Contexts, c) {
			decodeRow(c)
		}
	}
	return specs
}

// notRunReason starts the reason of a decode cell skipped because a
// smaller N at its context ran out of capacity; estimates know such a cell
// sent no prompts by it.
const notRunReason = "not run: "

// runCell runs cell i of specs. A decode cell whose context already ran
// out of capacity at a smaller N is not run (overCapacityAt remembers the
// smallest such N per context).
func (r *Runner) runCell(ctx context.Context, run *rundoc.Run, specs []cellSpec, i int, overCapacityAt map[int]int) rundoc.Cell {
	s := specs[i]
	cell := rundoc.Cell{Phase: s.phase, Context: s.context, Concurrency: s.n, StartedAt: r.Now().UTC().Truncate(time.Millisecond)}
	r.cellErr = nil
	r.cellETA, r.restETA, r.cellStart = r.eta(run, specs, i), r.eta(run, specs, i+1), r.Now()
	r.emit(rundoc.Event{Kind: rundoc.EventCellStarted, Run: run, Cell: &cell, Index: i, Total: len(specs), ETA: r.cellETA})
	switch {
	case s.phase == rundoc.PhasePrefill:
		r.prefill(ctx, run, &cell, i, len(specs))
	case s.phase == rundoc.PhaseBurst:
		r.burst(ctx, run, &cell, i, len(specs))
	default:
		if n0, ok := overCapacityAt[s.context]; ok && s.n > n0 {
			cell.Status = rundoc.StatusOverCapacity
			cell.Reason = fmt.Sprintf("%sconcurrency %d at this context was already over capacity", notRunReason, n0)
			break
		}
		r.decode(ctx, run, &cell, i, len(specs))
		cell.RooflinePct = RooflinePct(run.Server.Roofline, run.Plan, &cell)
		noteUncountedSteps(run.Server.Roofline, &cell)
		noteOverCapacity(overCapacityAt, &cell)
	}
	r.checkCellGone(ctx, &cell, cellMoment(&cell))
	if ctx.Err() != nil && cell.Status != rundoc.StatusCancelled {
		cell.Status, cell.Reason = rundoc.StatusCancelled, "the run was cancelled"
	}
	return cell
}

// cellMoment words where in a failed cell its server was found gone.
func cellMoment(c *rundoc.Cell) string {
	switch {
	case c.Phase == rundoc.PhasePrefill:
		return "in the prefill request"
	case c.Phase == rundoc.PhaseBurst:
		return "in the burst"
	case c.RampS > 0:
		return "at the end of the window"
	default:
		return "in the warm-up"
	}
}

// noteOverCapacity remembers a decode cell found over capacity at run
// time, so larger N at its context are not run.
func noteOverCapacity(overCapacityAt map[int]int, c *rundoc.Cell) {
	if c.Phase == rundoc.PhaseDecode && c.Status == rundoc.StatusOverCapacity && !strings.HasPrefix(c.Reason, "predicted") {
		if n0, ok := overCapacityAt[c.Context]; !ok || c.Concurrency < n0 {
			overCapacityAt[c.Context] = c.Concurrency
		}
	}
}

// kept returns the earlier attempt's cell for s when it holds a result to
// keep (Runner.Kept).
func (r *Runner) kept(s cellSpec) (rundoc.Cell, bool) {
	for _, c := range r.Kept {
		if c.Phase == s.phase && c.Context == s.context && c.Concurrency == s.n && keep(c, r.Kept) {
			return c, true
		}
	}
	return rundoc.Cell{}, false
}

// betweenCells words the moment of a server found gone before cell i.
func (r *Runner) betweenCells(run *rundoc.Run, specs []cellSpec, i int) string {
	next := rundoc.Cell{Phase: specs[i].phase, Context: specs[i].context, Concurrency: specs[i].n}
	if len(run.Cells) == 0 {
		return "before its first cell, " + next.Label()
	}
	return fmt.Sprintf("after cell %s, before cell %s", run.Cells[len(run.Cells)-1].Label(), next.Label())
}

// eta estimates the time the cells from specs[from] on take; a resumed
// run's kept cells take none.
func (r *Runner) eta(run *rundoc.Run, specs []cellSpec, from int) time.Duration {
	if len(r.Kept) > 0 {
		rest := slices.Clone(specs[:from])
		for _, s := range specs[from:] {
			if _, ok := r.kept(s); !ok {
				rest = append(rest, s)
			}
		}
		specs = rest
	}
	total := estimateSpecs(run.Plan, specs, from, ServerLimits(run.Server), run.Cells)
	return scaleDown(total, run.Plan.Speed())
}

// scaleDown converts a duration in the server's time to real time.
func scaleDown(d time.Duration, speed float64) time.Duration {
	return time.Duration(float64(d) / speed)
}

// measuringMessage is the progress line of a decode window: its length in
// the card's time, as the plan gives it, and, for a simulator sped up,
// the real seconds it takes ("measuring 8 stream(s) for 30 s of card time,
// 1.5 s at 20× speed"); a real time alone read as a shorter window.
func measuringMessage(streams int, d time.Duration, speed float64) string {
	msg := fmt.Sprintf("measuring %d stream(s) for %s", streams, rundoc.ShortDuration(d))
	if speed > 1 {
		msg += fmt.Sprintf(" of card time, %s at %g× speed", rundoc.ShortDuration(scaleDown(d, speed)), speed)
	}
	return msg
}

// calibrate sets up prompt building: /tokenize when the server has it
// (exact), else probe requests with max_tokens 1 (ratio, then corrected
// from usage.prompt_tokens as the run goes).
func (r *Runner) calibrate(ctx context.Context, run *rundoc.Run) error {
	srv := run.Server
	nonce := make([]byte, 4)
	rand.Read(nonce)
	var count Counter
	if srv.HasTokenize {
		// /tokenize is an info request: the client's own limit bounds it.
		count = func(ctx context.Context, prompt string) (int, error) {
			return r.Client.Tokenize(ctx, r.modelID, prompt)
		}
	} else {
		// A probe request prefills the prompt, whose tokens are not known
		// yet: its bytes bound them (no tokenizer makes more tokens than
		// bytes of English text).
		count = func(ctx context.Context, prompt string) (int, error) {
			w := r.untilFirstToken(ctx, run, len(prompt), len(prompt))
			defer w.cancel()
			res, err := r.Client.Stream(w.ctx, r.request(r.modelID, prompt, 1), w.watch(1))
			if err != nil {
				return 0, w.explain(res, err)
			}
			if res.PromptTokens == 0 {
				return 0, errors.New("the server reports no usage.prompt_tokens and has no /tokenize, so prompt lengths cannot be measured")
			}
			return res.PromptTokens, nil
		}
	}
	r.prompts = NewPrompts(hex.EncodeToString(nonce), count, srv.HasTokenize)
	if !srv.HasTokenize {
		w := r.untilFirstToken(ctx, run, 0, 0)
		w.cancel()
		r.emit(rundoc.Event{Kind: rundoc.EventRunProgress, Run: run,
			Message: fmt.Sprintf("measuring how the server counts prompt tokens, with short requests (each %s)", w.givesUp())})
	}
	return r.prompts.Calibrate(ctx)
}

// probeOptions sends one short decode request with every option a decode
// window uses. A server that refuses it with a plain 400 (not a length
// error) is asked again without min_tokens and continuous_usage_stats,
// which only vLLM-like servers know; ignore_eos stays, since without it
// output length would depend on the model.
//
// It is the first completion request of a run, so it has the same stuck
// budget as a prefill: a server that takes it and says nothing fails the
// run with a *StuckError, with a progress line saying what is awaited.
func (r *Runner) probeOptions(ctx context.Context, run *rundoc.Run) error {
	req := client.CompletionRequest{Model: r.modelID, Prompt: "Hello", MaxTokens: 2, MinTokens: 2, IgnoreEOS: true}
	send := func() error {
		w := r.untilFirstToken(ctx, run, 0, 0)
		defer w.cancel()
		r.emit(rundoc.Event{Kind: rundoc.EventRunProgress, Run: run,
			Message: fmt.Sprintf("waiting for the server to answer a first 2-token request (%s)", w.givesUp())})
		res, err := r.Client.Stream(w.ctx, req, w.watch(req.MaxTokens))
		return w.explain(res, err)
	}
	err := send()
	var (
		he    *client.HTTPError
		stuck *StuckError
	)
	if errors.As(err, &stuck) {
		return err
	}
	if !errors.As(err, &he) || he.Status != 400 {
		return nil // accepted, or a failure the cells will report
	}
	req.MinTokens, req.NoContinuousUsage = 0, true
	if err2 := send(); err2 != nil {
		if errors.As(err2, &stuck) {
			return err2
		}
		return fmt.Errorf("the server refuses RigBench's decode request: %w", err)
	}
	r.noMinTokens, r.noContinuousUsage = true, true
	return nil
}

// request is a completion request as this server accepts it. Requests of
// more than one token are decode requests: ignore_eos, and min_tokens where
// the server knows it, so output length never depends on the model.
func (r *Runner) request(model, prompt string, maxTokens int) client.CompletionRequest {
	req := client.CompletionRequest{Model: model, Prompt: prompt, MaxTokens: maxTokens,
		NoContinuousUsage: r.noContinuousUsage}
	if maxTokens > 1 {
		req.IgnoreEOS = true
		if !r.noMinTokens {
			req.MinTokens = maxTokens
		}
	}
	return req
}

// newDoc returns a document (prompt index) no request of the run sent.
func (r *Runner) newDoc() int {
	r.reqSeq++
	return r.reqSeq
}

// prefill runs one prefill cell (METHOD.md: Prefill cells). A fixed-window
// plan sends one request; an adaptive plan repeats it with fresh prompts
// until prompt tok/s is known within rundoc.PrefillPrecision, at least
// rundoc.MinPrefillRepeats and at most rundoc.MaxPrefillRepeats times. The
// cell reports the mean over the repetitions.
func (r *Runner) prefill(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell, index, total int) {
	if st := PrefillStatus(cell.Context, ServerLimits(run.Server)); st != "" {
		cell.Status, cell.Reason = st, predictReason(st, cell.Context, 1, 0, run.Server)
		return
	}
	waited, note := r.waitIdle(ctx, run)
	cell.IdleWaitS = waited
	defer addNote(cell, note)
	if r.gone != nil {
		cell.Status, cell.Reason = rundoc.StatusFailed, goneWords(r.gone.evidence, r.gone.where, false)
		return
	}
	if err := r.warmPrefill(ctx, run, cell, index, total); err != nil {
		r.fail(cell, err)
		if cell.Status == rundoc.StatusFailed {
			cell.Reason = "warm-up failed: " + cell.Reason
		}
		return
	}
	before := r.readCounters(ctx, run)
	repeats, most := 1, 1
	if run.Plan.Adaptive() {
		repeats, most = rundoc.MinPrefillRepeats, rundoc.MaxPrefillRepeats
	}
	var rates, ttfts []float64
	var reported []int // prompt lengths the server counted (promptcheck.go)
	for len(rates) < most {
		ttft, err := r.prefillOnce(ctx, run, cell, index, total)
		if err != nil {
			r.fail(cell, err)
			return
		}
		rates, ttfts = append(rates, float64(cell.PromptTokens)/ttft), append(ttfts, ttft)
		reported = append(reported, cell.PromptTokens)
		if mean, half := meanCI(rates); len(rates) >= repeats && half <= rundoc.PrefillPrecision*mean {
			break
		}
	}
	rate, half := meanCI(rates)
	ttft, _ := meanCI(ttfts)
	cell.Status = rundoc.StatusValid
	cell.TTFTMs = round(ttft*1000, 1)
	cell.PromptTokS = round(rate, 1)
	cell.PromptTokSCI95 = round(half, 2)
	cell.MeasuredS = round(ttft*float64(len(ttfts)), 3)
	cell.CompletedRequests = len(rates)
	checkPromptLength(cell, reported)
	prefillCheck(cell, before, r.readCounters(ctx, run))
	judge(cell, nil)
}

// prefillOnce sends one fresh prompt of the cell's context with max_tokens
// 1 and returns its time to first token in the card's seconds; it sets the
// cell's prompt tokens and token counts.
func (r *Runner) prefillOnce(ctx context.Context, run *rundoc.Run, cell *rundoc.Cell, index, total int) (float64, error) {
	doc := r.newDoc()
	prompt, err := r.prompts.Prompt(ctx, cell.Context, doc)
	if err != nil {
		return 0, err
	}
	w := r.untilFirstToken(ctx, run, cell.Context, cell.Context)
	r.emit(rundoc.Event{Kind: rundoc.EventCellProgress, Run: run, Cell: cell, Index: index, Total: total,
		Message: fmt.Sprintf("waiting for the first token of a %s-token prompt (%s)", rundoc.ContextLabel(cell.Context), w.givesUp())})
	res, err := r.Client.Stream(w.ctx, r.request(r.modelID, prompt, 1), nil)
	w.cancel()
	if err != nil {
		return 0, w.explain(res, err)
	}
	first := res.FirstToken
	if first.IsZero() {
		first = res.FirstChunk
	}
	if first.IsZero() {
		return 0, errors.New("the server returned no token")
	}
	cell.PromptTokens = res.PromptTokens
	if cell.PromptTokens == 0 {
		cell.PromptTokens = cell.Context
	} else if !run.Server.HasTokenize {
		r.prompts.Correct(cell.Context, res.PromptTokens)
	}
	cell.OutputTokens = res.Tokens
	cell.TokenCountSource = res.Source
	if r.docs != nil {
		r.docs.seed(cell.Context, doc)
	}
	if run.Plan.PromptPolicy() == rundoc.PromptsShared {
		r.shared.seed(cell.Context, doc)
	}
	return cardClock{start: res.Sent, speed: run.Plan.Speed()}.at(first).Seconds(), nil
}

// failure maps a request error to a cell status and reason.
// fail sets a cell's status and reason from the error that ended it, and
// keeps the error for the run's stop (FailuresError.Unreachable).
func (r *Runner) fail(cell *rundoc.Cell, err error) {
	cell.Status, cell.Reason = failure(err)
	r.cellErr = err
}

func failure(err error) (rundoc.Status, string) {
	var (
		tl *client.PromptTooLongError
		oc *client.OverCapacityError
	)
	switch {
	case errors.As(err, &tl):
		return rundoc.StatusExceedsLength, "the server rejected the prompt as too long: " + tl.Message
	case errors.As(err, &oc):
		return rundoc.StatusOverCapacity, oc.Error()
	case errors.Is(err, context.Canceled):
		return rundoc.StatusCancelled, "the run was cancelled"
	default:
		return rundoc.StatusFailed, err.Error()
	}
}

func predictReason(st rundoc.Status, c, n, m int, s rundoc.Server) string {
	if st == rundoc.StatusExceedsLength {
		return fmt.Sprintf("predicted: context %d + output %d is above max_model_len %d", c, m+1, s.MaxModelLen)
	}
	l := ServerLimits(s)
	if l.Queued(n) {
		return fmt.Sprintf("predicted: the %d requests the server runs at once (of %d) × (%d + %d) tokens are above the KV capacity of %s (%s)",
			l.Running(n), n, c, m, rundoc.TokensText(s.KVCapacityTokens), s.KVCapacitySource)
	}
	return fmt.Sprintf("predicted: %d × (%d + %d) tokens is above the KV capacity of %s (%s)", n, c, m, rundoc.TokensText(s.KVCapacityTokens), s.KVCapacitySource)
}
