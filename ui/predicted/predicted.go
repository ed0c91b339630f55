// Package predicted shows engine/predict's predictions in the views: Live
// predicts off the UI goroutine and hands back only the newest answer, and
// the texts here are the one wording of a prediction's figures in the app,
// every one marked predict.PredictedLabel so it never reads as measured.
// The views fill a predict.Request as the CLI's predict does and call its
// Do, so the app and `rigbench-cli predict` give the same figures.
package predicted

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/wording"
)

// Source is what the app's predictions learn from and look models up in:
// the history (nil: learn from nothing) and the folder of fetched model
// facts beside it ("" keeps none), as the CLI's predict uses them.
type Source struct {
	History  predict.History
	CacheDir string
}

// Request is req with the source's history and model cache; offline
// lookups never touch the network (the live predictions, made at every
// keystroke).
func (s Source) Request(req predict.Request, offline bool) predict.Request {
	req.History = s.History
	req.Lookup.CacheDir = s.CacheDir
	req.Lookup.Offline = offline
	return req
}

// timeout bounds one prediction: a history read or a lookup that hangs
// must not leave the view waiting for ever.
const timeout = 30 * time.Second

// Live runs one prediction at a time for a view: each Do supersedes the
// one before, whose answer is dropped. Its methods are called on the Fyne
// goroutine; the answer comes back there through fyne.Do.
type Live struct {
	mu sync.Mutex
	// showing serialises the answers' delivery: the real driver runs
	// fyne.Do's functions one at a time, Fyne's test driver inline on
	// each caller's goroutine.
	showing sync.Mutex
	gen     int
	cancel  context.CancelFunc
	// pending is true from a Do until its answer is shown or dropped.
	pending bool
	// OnShown (tests) is called on the Fyne goroutine after an answer
	// was shown.
	OnShown func()
}

// Inline makes every Live predict on the caller's goroutine and show the
// answer at once. Tests of the whole app set it: Fyne's test driver runs
// fyne.Do on the goroutine that calls it, so an answer delivered from a
// predicting goroutine would redraw the Launch page while the test edits
// it from its own (a crash in Fyne's text cache, not only a race report).
// The real driver serialises fyne.Do, and the app leaves Inline false.
var Inline bool

// Do predicts req on a goroutine of its own and calls show with the
// answer on the Fyne goroutine, unless another Do or Stop came since.
func (l *Live) Do(req predict.Request, show func(*predict.Prediction, error)) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	l.mu.Lock()
	if l.cancel != nil {
		l.cancel()
	}
	l.gen++
	gen := l.gen
	l.cancel, l.pending = cancel, true
	l.mu.Unlock()
	if Inline {
		defer cancel()
		pr, err := req.Do(ctx)
		if l.current(gen) {
			show(pr, err)
			l.shown(gen)
		}
		return
	}
	go func() {
		defer cancel()
		pr, err := req.Do(ctx)
		fyne.Do(func() {
			l.showing.Lock()
			defer l.showing.Unlock()
			if !l.current(gen) {
				return
			}
			show(pr, err)
			l.shown(gen)
		})
	}()
}

// current reports whether gen is the newest Do.
func (l *Live) current(gen int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return gen == l.gen
}

// shown marks Do gen answered once its answer is on screen (not before:
// a test that waits for Pending to clear must find the view done), and
// calls OnShown.
func (l *Live) shown(gen int) {
	l.mu.Lock()
	if gen == l.gen {
		l.pending = false
	}
	l.mu.Unlock()
	if l.OnShown != nil {
		l.OnShown()
	}
}

// Stop drops the answer of the Do in progress.
func (l *Live) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		l.cancel()
	}
	l.gen++
	l.pending = false
}

// Pending reports whether an answer is still to come.
func (l *Live) Pending() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending
}

// decodeCells are pr's decode cells that will run (valid or queued), in
// the plan's order.
func decodeCells(pr *predict.Prediction) []predict.Cell {
	var out []predict.Cell
	for _, c := range pr.Cells {
		if c.Phase == rundoc.PhaseDecode && c.TotalTokS > 0 &&
			(c.Status == predict.StatusRuns || c.Status == rundoc.StatusQueued) {
			out = append(out, c)
		}
	}
	return out
}

// cellText is one decode cell's predicted total tok/s: "16K×16 ≈ 296.1
// tok/s", formatted as every table formats the figure.
func cellText(c predict.Cell) string {
	d := c.Doc()
	return rundoc.CellName(c.Context, c.Concurrency) + " ≈ " + rundoc.FigTotalTokS.WithUnit(&d)
}

// Headline is a fitting launch's speed in one line: the plan's first
// decode cell that runs and its fastest, "Predicted: 0×1 ≈ 49.1 tok/s,
// 16K×16 ≈ 296.4 tok/s (simulator profile rtx3060-12gb, ±10%)"; "" when
// no decode cell runs.
func Headline(pr *predict.Prediction) string {
	cs := decodeCells(pr)
	if len(cs) == 0 {
		return ""
	}
	parts := []string{cellText(cs[0])}
	best := cs[0]
	for _, c := range cs[1:] {
		if c.TotalTokS > best.TotalTokS {
			best = c
		}
	}
	if best != cs[0] {
		parts = append(parts, cellText(best))
	}
	return fmt.Sprintf("%s: %s (%s)", upperFirst(predict.PredictedLabel),
		strings.Join(parts, ", "), pr.Basis())
}

// CellDetails is each decode cell that will run's predicted total tok/s
// as the plan preview's matrix shows it under "will run": "≈ 49.3 tok/s
// predicted", by (context, concurrency).
func CellDetails(pr *predict.Prediction) map[[2]int]string {
	out := map[[2]int]string{}
	for _, c := range decodeCells(pr) {
		d := c.Doc()
		out[[2]int{c.Context, c.Concurrency}] = "≈ " + rundoc.FigTotalTokS.WithUnit(&d) + " " + predict.PredictedLabel
	}
	return out
}

// Cells is every decode cell that will run, with its predicted total
// tok/s, in one line: "Predicted (simulator profile rtx3060-12gb, ±10%):
// 0×1 49.1, 0×4 180.2 … total tok/s"; prefill cells follow with their
// TTFT. "" when no cell runs.
func Cells(pr *predict.Prediction) string {
	var parts []string
	for _, c := range decodeCells(pr) {
		d := c.Doc()
		parts = append(parts, rundoc.CellName(c.Context, c.Concurrency)+" "+rundoc.FigTotalTokS.Text(&d))
	}
	line := ""
	if len(parts) > 0 {
		line = strings.Join(parts, ", ") + " " + rundoc.FigTotalTokS.Label
	}
	var pre []string
	for _, c := range pr.Cells {
		if c.Phase == rundoc.PhasePrefill && c.Status == predict.StatusRuns {
			d := c.Doc()
			pre = append(pre, "prefill "+rundoc.ContextLabel(c.Context)+" "+rundoc.FigTTFT.WithUnit(&d)+" TTFT")
		}
	}
	if len(pre) > 0 {
		if line != "" {
			line += "; "
		}
		line += strings.Join(pre, ", ")
	}
	if line == "" {
		return ""
	}
	return fmt.Sprintf("%s (%s): %s", upperFirst(predict.PredictedLabel), pr.Basis(), line)
}

// Failure is why there is no prediction, in one sentence: no card (with
// the demo suggested), a model not known offline, flags vLLM refuses.
func Failure(err error) string {
	var nc *predict.ErrNoCard
	if errors.As(err, &nc) {
		return wording.Sentence(fmt.Sprintf("no card to predict for (%s): choose the demo to see a prediction for its simulated card", nc.Why))
	}
	return wording.Sentence(err.Error())
}

// NeedsLookup reports whether err is a model the offline lookup does not
// know, which a lookup on the Hugging Face Hub may find.
func NeedsLookup(err error) bool { return errors.Is(err, predict.ErrNoFacts) }

// LookUp asks the Hugging Face Hub for model id's facts once, keeping them
// in the source's cache for the live predictions; it blocks, so the views
// call it off the UI goroutine.
func (s Source) LookUp(ctx context.Context, id string) error {
	_, err := predict.Lookup{CacheDir: s.CacheDir}.Model(ctx, id)
	return err
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// VersusMeasured is a decode cell's predicted total tok/s beside the
// measured one, with the prediction's error in percent of the measured
// figure: "predicted 49.1 tok/s, measured 49.6 (−1.0%); simulator profile
// rtx3060-12gb, ±10%". A cell without a measured figure says so.
func VersusMeasured(p predict.Cell, measured *rundoc.Cell, basis string) string {
	d := p.Doc()
	pred := rundoc.FigTotalTokS.Text(&d)
	if pred == "" {
		return fmt.Sprintf("%s: %s (%s)", upperFirst(predict.PredictedLabel), p.Status, basis)
	}
	m, ok := rundoc.FigTotalTokS.Value(measured)
	if !ok {
		return fmt.Sprintf("%s %s tok/s, not measured; %s", predict.PredictedLabel, pred, basis)
	}
	pct := 100 * (p.TotalTokS - m) / m
	sign := "+"
	if pct < 0 {
		sign = "−"
	}
	return fmt.Sprintf("%s %s tok/s, measured %s (%s%.1f%%); %s", predict.PredictedLabel, pred,
		rundoc.FigTotalTokS.Format(m), sign, math.Abs(pct), basis)
}
