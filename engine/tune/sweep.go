package tune

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

// History returns the runs of the history that carry a tag; a sweep finds
// its finished variants by Tag(id) to resume. The CLI and the app pass the
// history store's RunsTagged.
type History func(ctx context.Context, tag string) ([]*rundoc.Run, error)

// Status is what became of a variant.
type Status string

// Variant statuses.
const (
	// Measured: the variant ran its workload to the end.
	Measured Status = "measured"
	// FailedToStart: the server refused the flags or ran out of memory;
	// Error and Fix say why and what to change.
	FailedToStart Status = "failed to start"
	// Failed: the server started but the run failed.
	Failed Status = "failed"
	// Cancelled: the sweep was stopped during this variant.
	Cancelled Status = "cancelled"
	// NotRun: the sweep was stopped before this variant.
	NotRun Status = "not run"
)

// VariantResult is one variant's outcome.
type VariantResult struct {
	Variant Variant
	Status  Status
	// RunID is the run's UUID in the history ("" when none was saved).
	RunID string
	// Run is the run document (nil for a variant that did not start).
	Run   *rundoc.Run
	Score Score
	// Error is the start-up failure sentence or the run's error; Fix is
	// what to change, when known.
	Error, Fix string
	// Resumed is true when the result was found in the history rather
	// than measured by this call.
	Resumed bool
	// Quality is the variant's quality check against the base launch's
	// (Spec.Quality); nil when the sweep asks none.
	Quality *VariantQuality
	// LoadS is the time from launch until the server was ready (not in
	// any figure); MeasureS the run's time from then until its last cell
	// ended; WallS the variant's whole wall time. WallS − LoadS − MeasureS
	// is what the sweep itself adds (stopping the server, bookkeeping).
	LoadS, MeasureS, WallS float64
}

// Progress is one report of a sweep's progress.
type Progress struct {
	// Variant is k of Variants (1-based); Label names its flags.
	Variant, Variants int
	Label             string
	// Stage: "launching", "measuring", "probing" (the quality probe, after
	// the workload), "done", "skipped" (found finished in the history),
	// "failed".
	Stage string
	// Cell is the cell being measured ("16K×8"), CellIndex of Cells.
	Cell             string
	CellIndex, Cells int
	// Elapsed since the sweep started, ETA until it ends.
	Elapsed, ETA time.Duration
	// Result is set at "done", "skipped" and "failed".
	Result *VariantResult
}

// Runner runs a sweep.
type Runner struct {
	Spec   Spec
	Target Target
	// Hardware is the snapshot every variant records (nil: detected once
	// here, or, on another rig (Spec.OnRig), read by each variant's
	// session through the rig).
	Hardware    *hardware.Snapshot
	NoTelemetry bool
	// Observers returns extra observers of a variant's run, such as the
	// history's recorder (nil: none).
	Observers func(v Variant) []rundoc.Observer
	// History finds finished variants to skip (nil: start from scratch).
	History History
	// Progress receives reports on the sweep's goroutine (nil: none).
	Progress func(Progress)
	// Log receives server log lines.
	Log func(string)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// SpecDir, when set, is where Run keeps the spec before the first
	// variant (SaveSpec), so the sweep resumes from its id alone.
	SpecDir string
	// QualityProbe asks each variant's server Spec.Quality after its
	// workload. When nil, Run builds it from the probe's name and
	// Spec.QualityDataset (session.NewQualityProbe, the CLI's reader), a
	// task probe's data set fetched into DatasetDir's folder: at Start,
	// not while a front end's form is being edited.
	QualityProbe session.QualityProbe
	// DatasetDir is the folder fetched data sets are kept in
	// (session.QualityDatasetDir of the history); nil where none is, and a
	// task probe then needs Spec.QualityDataset. "agreement" needs neither.
	DatasetDir func() (string, error)

	// baseProbe is the base launch's quality result, which each later
	// variant's probe is paired with as it is measured, and baseRunID its
	// run.
	baseProbe *quality.Result
	baseRunID string
}

// RunName is the history name of a variant's run; resuming reads the
// label back from it.
func RunName(id string, v Variant) string { return "tune " + id + " · " + v.Label() }

// Run runs every variant not found finished in the history, in order, and
// returns the result with its verdict. A variant that fails does not stop
// the sweep; cancelling ctx stops it and keeps the finished variants (the
// result lists the rest as cancelled or not run, and err is ctx's).
func (r *Runner) Run(ctx context.Context) (*Result, error) {
	if err := r.Spec.Validate(); err != nil {
		return nil, err
	}
	if r.Spec.Quality != "" && r.QualityProbe == nil {
		probe, _, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: r.Spec.Quality,
			Demo: r.Spec.Target == TargetDemo, Dataset: r.Spec.QualityDataset, DatasetDir: r.DatasetDir})
		if err != nil {
			return nil, fmt.Errorf("sweep %s asks the quality probe %s: %w", r.Spec.ID, r.Spec.Quality, err)
		}
		r.QualityProbe = probe
	}
	now, logf, report := r.hooks()
	if err := r.checkSplits(ctx, logf); err != nil {
		return nil, err
	}
	if r.Hardware == nil && !r.Spec.OnRig() {
		snap := session.DetectHardware(ctx)
		r.Hardware = &snap
	}
	if r.SpecDir != "" {
		unlock, err := lockSweep(r.SpecDir, r.Spec.ID)
		if err != nil {
			return nil, err
		}
		defer unlock()
		// A resume continues the sweep as it was kept; other flags would
		// skip variants measured under other conditions.
		if kept, err := LoadSpec(r.SpecDir, r.Spec.ID); err == nil && r.History != nil {
			if err := r.Spec.Matches(kept); err != nil {
				return nil, err
			}
		}
		if err := SaveSpec(r.SpecDir, r.Spec); err != nil {
			return nil, err
		}
	}
	variants := r.Spec.Variants()
	done, err := r.finished(ctx, variants)
	if err != nil {
		return nil, err
	}
	res := &Result{Spec: r.Spec}
	start := now()
	eta := &etaTracker{estimates: make([]time.Duration, len(variants))}
	for i, v := range variants {
		eta.estimates[i] = r.estimate(v.Config)
	}
	for i, v := range variants {
		base := Progress{Variant: i + 1, Variants: len(variants), Label: v.Label()}
		switch run, ok := done[v.Label()]; {
		case ok:
			vr := VariantResult{Variant: v, Status: Measured, RunID: run.UUID, Run: run, Resumed: true}
			res.Variants = append(res.Variants, vr)
			p := base
			p.Stage, p.Elapsed, p.ETA, p.Result = "skipped", now().Sub(start), eta.left(i), &vr
			report(p)
		case ctx.Err() != nil:
			res.Variants = append(res.Variants, VariantResult{Variant: v, Status: NotRun})
		default:
			res.Variants = append(res.Variants, r.measure(ctx, i, v, base, eta, start, now, logf, report))
		}
		if i == 0 && res.Variants[0].Status == Measured {
			// The base's probe, measured now or kept in the history: each
			// later variant's probe is paired with it as it is measured.
			r.baseProbe, r.baseRunID = probeOf(res.Variants[0].Run), res.Variants[0].RunID
		}
	}
	res = Judge(r.Spec, res.Variants)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if r.SpecDir != "" {
		if err := MarkFinished(r.SpecDir, r.Spec.ID); err != nil {
			logf(fmt.Sprintf("could not mark sweep %s finished (it will reopen with Resume): %v", r.Spec.ID, err))
		}
	}
	return res, nil
}

// hooks are the runner's clock, log and progress, with defaults for those
// left nil.
func (r *Runner) hooks() (now func() time.Time, logf func(string), report func(Progress)) {
	now, logf, report = r.Now, r.Log, r.Progress
	if now == nil {
		now = time.Now
	}
	if logf == nil {
		logf = func(string) {}
	}
	if report == nil {
		report = func(Progress) {}
	}
	return now, logf, report
}

// measure launches and measures variant i, reporting its stages and cells.
func (r *Runner) measure(ctx context.Context, i int, v Variant, base Progress, eta *etaTracker, start time.Time,
	now func() time.Time, logf func(string), report func(Progress)) VariantResult {
	p := base
	p.Stage, p.Elapsed, p.ETA = "launching", now().Sub(start), eta.left(i)+eta.estimates[i]
	report(p)
	t0 := now()
	probing := func() {
		p := base
		p.Stage, p.Elapsed, p.ETA = "probing", now().Sub(start), eta.left(i)
		report(p)
	}
	vr := r.runVariant(ctx, v, probing, func(e rundoc.Event) {
		if e.Kind != rundoc.EventCellStarted && e.Kind != rundoc.EventCellProgress {
			return
		}
		p := base
		p.Stage, p.Elapsed = "measuring", now().Sub(start)
		p.Cell = rundoc.CellName(e.Cell.Context, e.Cell.Concurrency)
		if e.Cell.Phase == rundoc.PhasePrefill {
			p.Cell = "prefill " + rundoc.ContextLabel(e.Cell.Context)
		}
		p.CellIndex, p.Cells = e.Index+1, e.Total
		p.ETA = e.ETA + eta.left(i)
		report(p)
	}, logf, now)
	vr.WallS = now().Sub(t0).Seconds()
	if vr.Status == Measured {
		eta.measuredOne(i, now().Sub(t0))
	}
	p = base
	p.Stage, p.Elapsed, p.ETA, p.Result = "done", now().Sub(start), eta.left(i), &vr
	if vr.Status != Measured {
		p.Stage = "failed"
	}
	report(p)
	return vr
}

// etaTracker estimates the time a sweep has left: the estimates of the
// variants still to come, scaled by how the measured ones compared with
// theirs (wall time measured ÷ time estimated).
type etaTracker struct {
	estimates                   []time.Duration
	measured                    int
	measuredWall, estimatedDone time.Duration
}

// left is the time the variants after i will take.
func (t *etaTracker) left(i int) time.Duration {
	var d time.Duration
	for _, e := range t.estimates[i+1:] {
		d += e
	}
	if t.measured > 0 && t.estimatedDone > 0 {
		d = time.Duration(float64(d) * float64(t.measuredWall) / float64(t.estimatedDone))
	}
	return d
}

// measuredOne records that variant i was measured in wall.
func (t *etaTracker) measuredOne(i int, wall time.Duration) {
	t.measured++
	t.measuredWall += wall
	t.estimatedDone += t.estimates[i]
}

// runVariant launches and measures one variant through engine/session.
func (r *Runner) runVariant(ctx context.Context, v Variant, probing func(), progress func(rundoc.Event), logf func(string), now func() time.Time) VariantResult {
	vr := VariantResult{Variant: v}
	opts, err := r.targetOf(v).Session(v.Config)
	if err != nil {
		vr.Status = FailedToStart
		vr.Error, vr.Fix = Explain(err)
		return vr
	}
	t0 := now()
	started := false
	opts.Plan = r.Spec.Plan
	opts.Hardware = r.Hardware
	opts.NoTelemetry = r.NoTelemetry
	opts.Name = RunName(r.Spec.ID, v)
	opts.Tags = []string{Tag(r.Spec.ID)}
	opts.Notes = "Tune sweep " + r.Spec.ID + ", objective " + r.Spec.Objective.String() + "."
	opts.Log = logf
	if r.Spec.Quality != "" {
		opts.Quality = &session.RunQuality{Name: r.Spec.Quality, Probe: r.QualityProbe, Started: probing}
		if !v.IsBase() && r.baseProbe != nil {
			opts.Quality.Baseline, opts.Quality.BaselineRunID, opts.Quality.BaselineLabel = r.baseProbe, r.baseRunID, BaseLabel
		}
	}
	watch := rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventRunStarted && !started {
			started = true
			vr.LoadS = now().Sub(t0).Seconds()
		}
		if e.Kind == rundoc.EventRunDone && started {
			vr.MeasureS = now().Sub(t0).Seconds() - vr.LoadS
		}
		progress(e)
	})
	opts.Observers = []rundoc.Observer{watch}
	if r.Observers != nil {
		opts.Observers = append(opts.Observers, r.Observers(v)...)
	}
	run, err := session.Run(ctx, opts)
	vr.Run = run
	if run != nil && started {
		vr.RunID = run.UUID
	}
	switch {
	case err == nil && run != nil && run.Status == rundoc.RunComplete:
		vr.Status = Measured
	case ctx.Err() != nil:
		// The reason is always said: a progress line or a table cell
		// reading "cancelled: " with nothing after it looks broken.
		vr.Status = Cancelled
		vr.Error = "the sweep was stopped during this variant; the cells it measured are kept in its run"
	case !started:
		vr.Status = FailedToStart
		vr.Run = nil
		vr.Error, vr.Fix = Explain(err)
	default:
		vr.Status = Failed
		if err == nil {
			err = fmt.Errorf("the run ended %s", run.Status)
		}
		vr.Error, vr.Fix = Explain(err)
	}
	return vr
}

// finished returns the sweep's complete runs in the history by variant
// label (the newest when a variant was measured twice).
func (r *Runner) finished(ctx context.Context, variants []Variant) (map[string]*rundoc.Run, error) {
	return finishedRuns(ctx, r.Spec.ID, r.History, variants)
}

func finishedRuns(ctx context.Context, id string, history History, variants []Variant) (map[string]*rundoc.Run, error) {
	out := map[string]*rundoc.Run{}
	if history == nil {
		return out, nil
	}
	runs, err := history(ctx, Tag(id))
	if err != nil {
		return nil, fmt.Errorf("reading sweep %s from the history: %w", id, err)
	}
	want := map[string]bool{}
	for _, v := range variants {
		want[v.Label()] = true
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].CreatedAt.Before(runs[j].CreatedAt) })
	prefix := "tune " + id + " · "
	for _, run := range runs {
		label, ok := strings.CutPrefix(run.Name, prefix)
		if ok && want[label] && run.Status == rundoc.RunComplete {
			out[label] = run
		}
	}
	return out, nil
}

// Recall judges a sweep from what the history holds, measuring nothing:
// variants not found finished are NotRun, and complete is true when none
// is. A front end reopening on its last sweep shows the verdict when the
// sweep finished (the window may have closed during its last variant,
// after the variant was saved) and offers Resume when it did not; the
// CLI's --resume reads the same runs.
func Recall(ctx context.Context, spec Spec, history History) (res *Result, complete bool, err error) {
	variants := spec.Variants()
	done, err := finishedRuns(ctx, spec.ID, history, variants)
	if err != nil {
		return nil, false, err
	}
	complete = true
	var vrs []VariantResult
	for _, v := range variants {
		if run, ok := done[v.Label()]; ok {
			vrs = append(vrs, VariantResult{Variant: v, Status: Measured, RunID: run.UUID, Run: run, Resumed: true})
			continue
		}
		complete = false
		vrs = append(vrs, VariantResult{Variant: v, Status: NotRun})
	}
	return Judge(spec, vrs), complete, nil
}

// estimate is a variant's expected wall time: its launch, then the run as
// session.Estimate predicts it (the plan check and the capacity rule a
// run uses, the user's KV-capacity override included), at the target's
// speed. A target that knows its facts before launching (the demo) leaves
// out the cells the server cannot hold.
func (r *Runner) estimate(cfg vllm.LaunchConfig) time.Duration {
	f := session.Facts{Speed: r.Target.Speed()}
	if t, ok := r.Target.(interface {
		Facts(vllm.LaunchConfig) (int, int, bool)
	}); ok {
		f.MaxModelLen, f.KVCapacity, _ = t.Facts(cfg)
	}
	work, _ := session.Estimate(session.Predict(r.Spec.Plan, f), f, nil)
	return r.Target.StartupGuess() + work
}

// EstimateSweep is the expected wall time of the whole sweep, before it
// starts: the sum of its variants' estimates.
func (r *Runner) EstimateSweep() time.Duration {
	var t time.Duration
	for _, v := range r.Spec.Variants() {
		t += r.estimate(v.Config)
	}
	return t
}

// Explain turns a start-up or run error into the sentence a user reads and
// the fix, using vLLM's recognised start-up failures (engine/vllm) when the
// error is one, or names one in its text (the simulator's own messages are
// vLLM's).
func Explain(err error) (sentence, fix string) {
	if err == nil {
		return "", ""
	}
	var se *vllm.StartupError
	if errors.As(err, &se) {
		return se.Explanation, se.Fix
	}
	var gone *bench.ServerGoneError
	if errors.As(err, &gone) {
		// Its own advice is to resume the run; a sweep's resume measures
		// the variant again, whole.
		return gone.Stopped(), ""
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if _, se := vllm.Recognize(line); se != nil {
			return se.Explanation, se.Fix
		}
	}
	return err.Error(), ""
}
