package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/dialogkeys"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/wording"
)

// startRun is the Run view's StartFunc: it turns the chosen target into a
// session and runs it on the caller's goroutine (never the UI's).
func (u *UI) startRun(ctx context.Context, plan rundoc.Plan, obs rundoc.Observer) (*rundoc.Run, error) {
	var in session.TargetInput
	var snap *hardware.Snapshot
	var resume *rundoc.Run
	fyne.DoAndWait(func() {
		resume, u.resuming = u.resuming, nil
		snap = u.snapshot
		in = u.targetInput()
	})
	if in.Kind == target.Launch && in.Server == nil {
		return nil, session.ErrNoServer
	}
	// The target is read by session.TargetInput, the CLI's reader: a
	// launch measures the Launch page's server (its record is the launched
	// configuration, not the form's, which may have been edited since).
	o, err := in.Options(session.Launching{})
	if err != nil {
		return nil, errors.New(target.Text(err))
	}
	// A plan the server cannot run stops at its start, as in the CLI,
	// and leaves no run in the history.
	o.Plan, o.Observers, o.Hardware, o.StopWhenNothingRuns, o.Resume = plan, []rundoc.Observer{obs}, snap, true, resume
	if in.Server != nil && in.Server.Dial != nil {
		// On another rig (reached through its SSH connection): its
		// hardware as the rig picker detected it; the session reads its
		// GPUs in the server's container, not this computer's.
		o.Hardware = u.rigSnapshot()
	}
	src := u.History.Source()
	saver := src.Recorder()
	if saver != nil {
		// After the saver: the list is read again once the run or a cell
		// is in the history, so History shows a run while it writes.
		o.Observers = append(o.Observers, saver, rundoc.ObserverFunc(func(e rundoc.Event) {
			if e.Kind == rundoc.EventRunStarted || e.Kind == rundoc.EventCellDone {
				fyne.Do(u.History.Reload)
			}
		}))
	}
	run, err := u.svc.Session(ctx, o)
	u.keep(src, saver, run)
	// The engine's errors give CLI advice (--api-key, --db).
	return run, forApp(err)
}

// targetInput is the chosen target as engine/session reads it: the
// chooser's fields, the Launch page's flags (the demo's too) and demo
// speed, and the server the Launch page started. Call it on the Fyne
// goroutine.
func (u *UI) targetInput() session.TargetInput {
	in := u.Target.Input()
	in.Launch = u.Launch.Form.Config()
	switch in.Kind {
	case target.Demo:
		in.SimSpeed = strconv.FormatFloat(u.Launch.DemoSpeed(), 'g', -1, 64)
	case target.Launch:
		in.Server = u.Launch.Server()
	}
	return in
}

// resume continues run r (Results' Resume): the Run view runs its plan
// against the chosen target, measuring only the cells without a result
// into r, which keeps the rest as they were.
func (u *UI) resume(r *rundoc.Run) {
	if u.Run.Running() {
		dialogkeys.ShowInformation("A run is in progress", "Resume this run once the one in progress has finished, or cancel it in the Run tab.", u.win)
		return
	}
	u.resuming = r
	u.SelectTab(TabRun)
	u.Run.StartPlan(r.Plan)
}

// keep makes sure a finished run is in the history: the recorder settles
// it (store.Recorder.Settle, the CLI's rule: a write that failed on the way
// is made good by saving the whole run); the session-only list, which has
// no recorder, adds a run that measured something. A run that still cannot
// be saved is said above the history table.
func (u *UI) keep(src history.Source, rec history.Recorder, run *rundoc.Run) {
	if run == nil || run.UUID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	switch {
	case rec != nil:
		err = rec.Settle(ctx, run)
	case len(run.Cells) > 0:
		// A run that ended before it started measured nothing: the real
		// history keeps no row for it (store.Recorder), and nor does this.
		err = src.Add(ctx, run)
	}
	if err != nil {
		u.mu.Lock()
		u.notSaved[run.UUID] = true
		u.mu.Unlock()
		fyne.Do(func() {
			u.History.SetNote(fmt.Sprintf("The last run could not be saved to the history (%s); export it from Results to keep it.", strings.TrimSuffix(wording.LowerFirst(userText(err)), ".")))
		})
	}
}

// demoConfig is the simulator the demo target runs: the Launch page's
// flags at the chosen speed (session.TargetInput's demo, the CLI's rule).
// It starts from sim.DefaultConfig (the reference card, prefix caching on
// as in vLLM V1).
func (u *UI) demoConfig() (sim.Config, error) {
	in := session.TargetInput{Kind: target.Demo, Launch: u.Launch.Form.Config(),
		SimSpeed: strconv.FormatFloat(u.Launch.DemoSpeed(), 'g', -1, 64)}
	s, _, err := in.Demo()
	return s, err
}

// targetChanged updates the Run view for a new target. For the demo the
// server's facts are known before it starts (the simulator's profile), so
// the plan check and the estimate, in real time at the demo's speed, are
// right from the first look. For a launched server they are what its
// readiness reported; an endpoint's are unknown until a run contacts it,
// and the previous target's would predict cells from the wrong server.
func (u *UI) targetChanged(k target.Kind) {
	u.Run.SetSimulated(k == target.Demo)
	u.Run.SetTarget(u.targetLine(k))
	switch k {
	case target.Demo:
		// An error leaves the facts unknown (the speed aside): the run
		// itself then says why the demo cannot start.
		cfg, err := u.demoConfig()
		f := session.Facts{Speed: max(1, cfg.Speed)}
		if err == nil {
			f, _ = session.DemoFacts(cfg)
		}
		u.Run.SetFacts(f)
	case target.Launch:
		u.Run.SetFacts(session.ServerFacts(u.Launch.Server()))
	default:
		u.Run.SetFacts(session.Facts{})
	}
	u.Run.SetPrediction(u.runPrediction())
}

// targetLine names what a run will benchmark, above the Run view's Start
// button: an endpoint's URL, the launched server's address, or the demo.
func (u *UI) targetLine(k target.Kind) string {
	switch k {
	case target.Endpoint:
		if url := u.Target.Choice().URL; url != "" {
			return "Target: the endpoint at " + url + "."
		}
		return "Target: an existing endpoint; enter its URL in the Launch tab."
	case target.Launch:
		if s := u.Launch.Server(); s != nil {
			return "Target: vLLM at " + s.Endpoint + ", launched from the Launch tab."
		}
		return "Target: vLLM in Docker, not started yet; start it in the Launch tab."
	}
	return fmt.Sprintf("Target: the demo, RigBench's simulated server, at %g× speed.", u.Launch.DemoSpeed())
}
