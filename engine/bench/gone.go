package bench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// A server that dies mid-run (METHOD.md: Decode cells, step 5, "server
// exit"). Requests that fail at the connection level, and every cell's
// start, ask the server once whether it is still there (client.Probe: a
// refused or unanswered connection), or, for a launched container, whether
// it exited (Runner.Exited). A server that is gone fails the cell it died
// in, with the moment, and ends the run at once with a *ServerGoneError
// naming what was kept: waiting out the idle wait and the failed-cells
// limit would cost a minute a cell for a server that refuses connections.

// exitWait is how long a failed probe of a launched server waits for the
// container's exit to be reported, so the sentence can name its exit
// code: the log stream ends a moment after the process.
const exitWait = time.Second

// ExitedError is a launched server whose container exited during the run.
// Report is the launcher's sentence: the exit code and what the start-up
// failure recognisers make of its last log lines.
type ExitedError struct{ Report string }

func (e *ExitedError) Error() string {
	if e.Report == "" {
		return "its container exited"
	}
	return "its container exited (" + e.Report + ")"
}

// LinkLostError is a server on a remote rig whose connection dropped
// during the run: the server may still run there, but the run cannot
// reach it. Err is the rig's sentence (engine/rig).
type LinkLostError struct{ Err error }

func (e *LinkLostError) Error() string { return e.Err.Error() }

// Unwrap exposes the rig's error.
func (e *LinkLostError) Unwrap() error { return e.Err }

// ServerGoneError ends a run whose server stopped answering, or stopped
// producing tokens while its requests fit (stall.go): where it died, what
// the run kept, and (for a launched server) why the container exited.
type ServerGoneError struct {
	// URL is the server's address.
	URL string
	// Cell names the cell it died in ("decode 0×1"), "" between cells.
	Cell string
	// Where is the moment: "13.1 s into its window", "during its warm-up",
	// "after decode 0×1, before decode 0×2".
	Where string
	// Kept is how many cells of Total the run measured and keeps (those
	// neither Failed nor Cancelled; a resume leaves them as they are).
	Kept, Total int
	// Err is the evidence: a *client.GoneError, an *ExitedError, a
	// *LinkLostError or a *StalledError (stall.go).
	Err error
}

// Stopped is the sentence without advice, for a front end to add its own
// ("run the rest with rigbench-cli run --resume ID", "press Resume").
func (e *ServerGoneError) Stopped() string {
	where := e.Where
	if e.Cell != "" {
		where = fmt.Sprintf("during cell %s (%s)", e.Cell, e.Where)
	}
	verb := "stopped answering"
	if stalled(e.Err) {
		verb = "stopped producing tokens"
	}
	msg := fmt.Sprintf("the server at %s %s %s", e.URL, verb, where)
	var (
		ex *ExitedError
		ll *LinkLostError
		st *StalledError
	)
	if errors.As(e.Err, &st) {
		msg += ": " + st.Error()
	} else if errors.As(e.Err, &ll) {
		msg += ": " + ll.Error()
	} else if errors.As(e.Err, &ex) {
		msg += ": " + ex.Error()
	}
	return msg + fmt.Sprintf("; %d of %d cells were measured and kept", e.Kept, e.Total)
}

func (e *ServerGoneError) Error() string {
	return e.Stopped() + "; start the server again and resume the run to measure the rest"
}

func (e *ServerGoneError) Unwrap() error { return e.Err }

// serverGone asks once whether the server is gone and returns the
// evidence (*ExitedError, *client.GoneError), nil while it answers.
func (r *Runner) serverGone(ctx context.Context) error {
	if err := r.exited(0); err != nil {
		return err
	}
	var g *client.GoneError
	if err := r.Client.Probe(ctx); errors.As(err, &g) {
		if ex := r.exited(exitWait); ex != nil {
			return ex
		}
		if ll := r.linkLost(); ll != nil {
			return ll
		}
		return g
	}
	return nil
}

// exited returns an *ExitedError when Exited is closed, waiting up to wait
// for it.
func (r *Runner) exited(wait time.Duration) error {
	if r.Exited == nil {
		return nil
	}
	select {
	case <-r.Exited:
	default:
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-r.Exited:
		case <-t.C:
			return nil
		}
	}
	if ll := r.linkLost(); ll != nil {
		return ll // the tunnel's end closed the log stream: the container may well run
	}
	report := ""
	if r.ExitReport != nil {
		report = r.ExitReport()
	}
	return &ExitedError{Report: report}
}

// linkLost is a *LinkLostError when the rig's connection dropped, nil
// while it is up or when the server is not behind one.
func (r *Runner) linkLost() error {
	if r.LinkLost == nil {
		return nil
	}
	if err := r.LinkLost(); err != nil {
		return &LinkLostError{Err: err}
	}
	return nil
}

// connectionFailure reports whether a request error says the connection
// failed (refused, reset, ended mid-stream), the errors after which the
// server may be gone; an HTTP status or a malformed chunk is an answer.
func connectionFailure(err error) bool {
	var (
		ue *client.UnreachableError
		se *client.StreamError
		ur *url.Error
	)
	switch {
	case errors.As(err, &ue), errors.As(err, &ur):
		return true
	case errors.As(err, &se):
		return se.Err != nil && !errors.Is(se.Err, client.ErrLineTooLong)
	}
	return false
}

// goneWords words what a gone server did at a moment ("13.1 s into the
// window"): "the server closed every connection 13.1 s into the window and
// refused new ones". broke is false when no request failed (the streams
// went silent), so the server stopped answering rather than closed them.
func goneWords(evidence error, moment string, broke bool) string {
	var (
		ex *ExitedError
		g  *client.GoneError
	)
	switch {
	case errors.As(evidence, &ex):
		return fmt.Sprintf("the server stopped %s: %s", moment, ex.Error())
	case errors.As(evidence, &g) && !broke:
		if g.Refused {
			return fmt.Sprintf("the server stopped answering %s and refused new connections", moment)
		}
		return fmt.Sprintf("the server stopped answering %s and closed new connections unanswered", moment)
	case errors.As(evidence, &g) && g.Refused:
		return fmt.Sprintf("the server closed every connection %s and refused new ones", moment)
	default:
		return fmt.Sprintf("the server closed every connection %s and closed new ones unanswered", moment)
	}
}

// windowMoment words a card offset from the window's opening.
func windowMoment(at time.Duration) string {
	if at < 0 {
		return fmt.Sprintf("%.1f s before the window opened, during the ramp", -at.Seconds())
	}
	return fmt.Sprintf("%.1f s into the window", at.Seconds())
}

// goneWatch is one decode window's watch for a gone server: the first
// connection failure asks once (later ones wait for that answer), and a
// gone server ends the window at once.
type goneWatch struct {
	mu       sync.Mutex
	evidence error
	asked    bool
	// firstFail is the card offset (from the first send) of the earliest
	// connection failure; hasFail false when none came.
	firstFail time.Duration
	hasFail   bool
}

// failed records a connection failure at card offset at and reports
// whether the server is gone (probing once per window until it is).
func (g *goneWatch) failed(ctx context.Context, r *Runner, at time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.hasFail || at < g.firstFail {
		g.firstFail, g.hasFail = at, true
	}
	if g.evidence == nil && ctx.Err() == nil {
		g.evidence = r.serverGone(ctx)
		g.asked = true
	}
	return g.evidence != nil
}

// check asks once more (the window closed without a failure, or a
// launched container exited) unless the answer is known.
func (g *goneWatch) check(ctx context.Context, r *Runner) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.evidence == nil && ctx.Err() == nil {
		g.evidence = r.serverGone(ctx)
	}
	return g.evidence
}

// markGone fails a decode cell whose server went away during it (the
// figures stay, for the record; Failed keeps them out of headlines, charts,
// Compare and Tune), with the moment: the first connection failure, else
// the last token that arrived. offsets count from the window's opening.
func (w *window) markGone(evidence error, reqs []request) {
	g := &w.gone
	at, broke := time.Duration(0), g.hasFail
	open, isOpen := w.live.opening()
	if !isOpen {
		open = 0
	}
	if broke {
		at = g.firstFail - open
	} else {
		for _, rq := range reqs {
			if n := len(rq.chunks); n > 0 {
				at = max(at, rq.chunks[n-1].at) // shifted already: from the opening
			}
		}
	}
	c := w.cell
	prev := c.Reason
	c.Status, c.Reason = rundoc.StatusFailed, goneWords(evidence, windowMoment(at), broke)
	w.runner.gone = &goneMark{evidence: evidence, where: windowMoment(at)}
	if prev != "" {
		addNote(c, prev)
	}
}

// goneMark is what the runner knows of a gone server.
type goneMark struct {
	evidence error
	// where is the moment in the cell it died in, "" between cells.
	where string
}

// checkCellGone asks, after a cell that failed without knowing why,
// whether the server is gone, and if so words the cell's reason.
func (r *Runner) checkCellGone(ctx context.Context, cell *rundoc.Cell, phase string) {
	if r.gone != nil || cell.Status != rundoc.StatusFailed || ctx.Err() != nil {
		return
	}
	if ev := r.serverGone(ctx); ev != nil {
		r.gone = &goneMark{evidence: ev, where: phase}
		r.rewordGone(cell, phase)
	}
}

// rewordGone puts the gone server's words first in a failed cell's reason.
func (r *Runner) rewordGone(cell *rundoc.Cell, phase string) {
	prev := cell.Reason
	cell.Status, cell.Reason = rundoc.StatusFailed, goneWords(r.gone.evidence, phase, true)
	addNote(cell, prev)
}

// goneError is the run's end once the server is gone.
func (r *Runner) goneError(run *rundoc.Run, specs []cellSpec, cell string) error {
	kept := 0
	for _, c := range run.Cells {
		if KeepOnResume(c.Status) {
			kept++
		}
	}
	where := r.gone.where
	return &ServerGoneError{URL: r.Client.Endpoint(), Cell: cell, Where: where, Kept: kept, Total: len(specs), Err: r.gone.evidence}
}

// KeepOnResume reports whether a cell of this status is a result a resumed
// run keeps: every status but Failed, Cancelled and Unreliable (Requests
// queued, Over capacity and Exceeds model length are what the method says
// of the cell, and measuring them again gives the same verdict; an
// Unreliable cell's evidence contradicted its figure, which another
// measurement may not). A resume also measures again an Over capacity
// verdict that no capacity evidence backs (keep, stall.go).
func KeepOnResume(s rundoc.Status) bool {
	return s != rundoc.StatusFailed && s != rundoc.StatusCancelled && s != rundoc.StatusUnreliable && s != ""
}

// ResumeMismatchError refuses to resume a run on a server other than the
// one that measured its kept cells: the figures would not compare, and the
// run would read as one measurement.
type ResumeMismatchError struct {
	// Field names what differs ("model", "engine version", …); Was and
	// Now are its values.
	Field, Was, Now string
}

func (e *ResumeMismatchError) Error() string {
	return fmt.Sprintf("the server's %s is %q, but the run measured its cells with %q: start the server the run measured (or start a new run)",
		e.Field, e.Now, e.Was)
}

// checkResume compares a resumed run's server with the one it measured:
// model, engine, version and max_model_len must match. A KV capacity that
// moved is allowed (a restart on a card with less free memory), since each
// cell's status is judged against the capacity it ran with.
func (r *Runner) checkResume(now rundoc.Server) error {
	if len(r.Kept) == 0 {
		return nil
	}
	was := r.was
	for _, f := range []struct{ name, was, now string }{
		{"model", was.Model, now.Model},
		{"engine", was.Engine, now.Engine},
		{"engine version", was.Version, now.Version},
		{"max_model_len", fmt.Sprint(was.MaxModelLen), fmt.Sprint(now.MaxModelLen)},
	} {
		if f.was != f.now {
			return &ResumeMismatchError{Field: f.name, Was: f.was, Now: f.now}
		}
	}
	return nil
}

// Remaining counts the cells of run's plan that a resume measures: those
// without a result to keep (KeepOnResume), never run included.
func Remaining(run *rundoc.Run) int {
	r := &Runner{Kept: run.Cells}
	n := 0
	for _, s := range cellSpecs(run.Plan) {
		if _, ok := r.kept(s); !ok {
			n++
		}
	}
	return n
}
