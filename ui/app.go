package ui

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/compare"
	"github.com/rigbench/rigbench/ui/dialogkeys"
	"github.com/rigbench/rigbench/ui/export"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/results"
	"github.com/rigbench/rigbench/ui/rigpick"
	"github.com/rigbench/rigbench/ui/runview"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/tuneview"
	"github.com/rigbench/rigbench/ui/wording"
)

// Default window size, used until the user resizes it: a 1280×800
// screen's, which 820 overflowed.
const (
	defaultWidth  = 1280
	defaultHeight = 800
)

// Tab titles, also the names the screenshot tour gives its files.
const (
	TabHardware = "Hardware"
	TabLaunch   = "Launch"
	TabRun      = "Run"
	TabResults  = "Results"
	TabHistory  = "History"
	TabCompare  = "Compare"
)

// UI is the main window's state. Its methods must run on the Fyne
// goroutine.
type UI struct {
	app  fyne.App
	win  fyne.Window
	svc  Services
	tabs *container.AppTabs

	Hardware *hwview.View
	Target   *target.Chooser
	Launch   *launchview.View
	// HardwareRig and LaunchRig are the rig pickers of the Hardware and
	// Launch views (one choice, shown in both).
	HardwareRig, LaunchRig *rigpick.Picker
	Run                    *runview.View
	Results                *results.View
	History                *history.View
	Compare                *compare.View
	Tune                   *tuneview.View

	snapshot  *hardware.Snapshot
	ready     chan struct{}
	readyOnce sync.Once
	// tourFailed is set when the screenshot tour could not set up a view.
	tourFailed atomic.Bool
	// themeMenu is View ▸ Theme, whose ticks follow the choice.
	themeMenu *fyne.Menu
	// themeGen counts View ▸ Theme switches; tabThemed is the count each
	// tab was last themed at (see themeTab).
	themeGen  int
	tabThemed map[*container.TabItem]int

	// unsavedWhy is the Run view's warning while runs are not being
	// saved (the history could not be opened), "" while they are.
	unsavedWhy string
	// notSaved holds the UUIDs of runs whose save failed (keep, on the
	// run's goroutine); unsavedRuns counts this session's runs with
	// measured cells that are not in the history, which closing asks
	// about.
	mu          sync.Mutex
	notSaved    map[string]bool
	unsavedRuns int
	// rig is the picked rig (under mu).
	rig rigState
	// detected (tests) is called on the Fyne goroutine after each
	// detection has shown its findings.
	detected func()
	// resuming is the run the next run start continues (Results'
	// Resume), nil for a new run; read and cleared on the Fyne goroutine.
	resuming *rundoc.Run
	// opened is closed once Results shows the history's latest run at
	// start, or there is none to show (ResultsOpened).
	opened chan struct{}
}

// New builds RigBench's main window into w with the real services.
func New(a fyne.App, w fyne.Window) *UI { return NewWithServices(a, w, DefaultServices()) }

// NewWithServices builds the window with the given services (tests pass a
// fast simulator and a temporary history). It is longer than 80 lines on
// purpose: it is the app's wiring, one statement per connection between a
// view and a service, read top to bottom; split, the order in which views
// must exist before they are connected would be spread over several
// functions.
func NewWithServices(a fyne.App, w fyne.Window, svc Services) *UI {
	svc.SimSpeed = tourSpeed(svc.SimSpeed)
	if svc.Sweep == nil {
		svc.Sweep = DefaultServices().Sweep
	}
	if svc.Resweep == nil {
		svc.Resweep = DefaultServices().Resweep
	}
	if svc.Quality == nil {
		svc.Quality = session.Quality
	}
	u := &UI{app: a, win: w, svc: svc, ready: make(chan struct{}), notSaved: map[string]bool{}}
	prefs := a.Preferences()
	if th := os.Getenv(TourThemeEnv); th != "" && os.Getenv(TourEnv) != "" {
		// The tour's theme, before anything is drawn.
		prefs.SetString(prefTheme, th)
	}
	a.Settings().SetTheme(themeFor(prefs.StringWithFallback(prefTheme, ThemeSystem)))

	u.Hardware = hwview.New()
	u.Hardware.OnDetect = func() { go u.detect() }
	kind := target.Kind(prefs.StringWithFallback(prefTarget, string(target.Demo)))
	u.Target = target.NewChooser(kind)
	u.Target.Set(target.Choice{Kind: kind, URL: prefs.String(prefEndpoint)})
	u.Launch = launchview.New(a, w, u.Target, u.rigLaunch(svc.Launch))
	if c, ok := loadLaunch(prefs); ok {
		u.Launch.Form.SetConfig(c)
	}
	u.setupRigs(prefs)
	u.Launch.Form.SetRecentModels(prefs.StringList(prefRecentModels))
	u.Launch.SetUserPresets(loadPresets(prefs))
	u.Launch.OnUserPresets = func(m map[string][]vllm.FlagValue) { savePresets(prefs, m) }
	// Until the user picks one: a first demo gives its result within a
	// minute (issue 41), the plan below being the quick one.
	u.Launch.SetDemoSpeed(prefs.FloatWithFallback(prefDemoSpeed, session.FirstDemoSpeed))
	if svc.SimSpeed > 1 {
		// RIGBENCH_SIM_SPEED (or a test) chooses the speed for this session.
		u.Launch.SetDemoSpeed(svc.SimSpeed)
	}
	u.Launch.OnDemoSpeed = func(s float64) {
		prefs.SetFloat(prefDemoSpeed, s)
		u.targetChanged(u.Target.Choice().Kind)
	}
	u.Launch.OnConfig = func(c vllm.LaunchConfig) {
		saveLaunch(prefs, c)
		u.setRigImage(c.ImageRef())
		// The demo's capacity and estimate follow its flags.
		if u.Run != nil && u.Target.Choice().Kind == target.Demo {
			u.targetChanged(target.Demo)
		}
	}
	u.Launch.OnStopped = func() { u.targetChanged(u.Target.Choice().Kind) }
	u.Launch.OnReady = func(s *session.Server) {
		u.Run.SetTarget(u.targetLine(u.Target.Choice().Kind))
		u.Run.SetFacts(session.ServerFacts(s))
		u.Run.SetPrediction(u.runPrediction())
		// A model that served goes first in the model drop-down, next
		// start included.
		if s.Record != nil {
			u.Launch.Form.SetRecentModels(rememberModel(prefs, s.Record.Model))
		}
	}

	u.Run = runview.New(u.startRun)
	if p, ok := loadPlan(prefs); ok {
		u.Run.SetPlan(p)
	} else {
		// First start: a first look, not the half-hour full matrix, which
		// is one click away (Full matrix).
		u.Run.SetPlan(rundoc.QuickPlan())
	}
	u.Run.OnPlanChanged = func(p rundoc.Plan) {
		savePlan(prefs, p)
		// The Launch view's predicted headline is for the plan a run runs.
		u.Launch.SetPredictPlan(p)
	}
	u.Run.OnFinished = u.runFinished
	u.Run.Saved = u.saved
	u.Run.OnExport = func(r *rundoc.Run) { u.exportRuns([]*rundoc.Run{r}) }
	u.Run.SetQuality(u.checkQuality)
	u.Run.SetOnQualityOpen(u.openQualityBaseline)
	u.Run.SetOnQualityExport(u.exportQuality)
	u.Results = results.New()
	u.Results.OnResume = u.resume
	src, note, unsaved, closeHistory := openHistory(os.Getenv)
	// "Will it fit?" and the Run view's predicted figures learn from the
	// history, as rigbench-cli predict does.
	psrc := predictSource(src)
	u.Launch.SetPrediction(psrc)
	u.Results.SetPrediction(psrc)
	if p, err := u.Run.Plan(); err == nil {
		u.Launch.SetPredictPlan(p)
	}
	u.unsavedWhy = unsaved
	u.Run.SetUnsaved(unsaved)
	u.History = history.New(w, src, note)
	u.History.OnShow = func(r *rundoc.Run) { u.Results.SetRun(r, nil); u.SelectTab(TabResults) }
	u.History.OnCompare = func(rs []*rundoc.Run) { u.Compare.SetRuns(rs, nil); u.SelectTab(TabCompare) }
	u.History.OnExport = u.exportRuns
	u.History.OnRenamed = u.renamed
	u.History.OnDeleted = func(uuids []string) {
		u.Results.MarkDeleted(uuids)
		u.Compare.MarkDeleted(uuids)
		u.Tune.Rejudge()
	}
	u.opened = make(chan struct{})
	u.History.ReloadThen(u.openLatest)
	u.Compare = compare.New()
	u.Compare.OnExport = u.exportRuns
	u.Tune = tuneview.New(u.tuneBackend())
	u.Results.OnTune = func(s tune.Spec) { u.Tune.Prefill(s); u.SelectTab(TabTune) }

	prevTarget := u.Target.OnChanged
	u.Target.OnChanged = func(ch target.Choice) {
		if prevTarget != nil {
			prevTarget(ch)
		}
		prefs.SetString(prefTarget, string(ch.Kind))
		if ch.Kind == target.Endpoint {
			prefs.SetString(prefEndpoint, ch.URL)
		}
		u.targetChanged(ch.Kind)
		u.Tune.Refresh()
	}
	u.targetChanged(u.Target.Choice().Kind)

	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon(TabHardware, theme.ComputerIcon(), u.Hardware.Content()),
		container.NewTabItemWithIcon(TabLaunch, theme.SettingsIcon(), u.Launch.Content()),
		container.NewTabItemWithIcon(TabRun, theme.MediaPlayIcon(), u.Run.Content()),
		// In a scroller: the tab bar is as wide as its widest tab, and the
		// Tune view's 1,050 units pushed every tab past a 900 px window.
		container.NewTabItemWithIcon(TabTune, theme.SearchIcon(), container.NewScroll(u.Tune.Content())),
		container.NewTabItemWithIcon(TabResults, theme.GridIcon(), u.Results.Content()),
		container.NewTabItemWithIcon(TabHistory, theme.HistoryIcon(), u.History.Content()),
		container.NewTabItemWithIcon(TabCompare, theme.ListIcon(), u.Compare.Content()),
	)
	u.tabThemed = map[*container.TabItem]int{}
	u.tabs.OnSelected = func(it *container.TabItem) {
		u.themeTab(it)
		if it.Text == TabTune {
			u.Tune.Refresh() // the Launch page's flags and server may have changed
		}
	}
	w.SetContent(u.tabs)
	w.SetMainMenu(u.menu())
	u.addShortcuts()
	w.Resize(fyne.NewSize(float32(prefs.FloatWithFallback(prefWidth, defaultWidth)), float32(prefs.FloatWithFallback(prefHeight, defaultHeight))))
	w.SetCloseIntercept(u.Close)
	// The history closes with the window: by then closing() has waited for
	// the run, so its recorder has written the last cell.
	w.SetOnClosed(func() { closeHistory(); u.closeRig() })
	go u.detect()
	u.startTour()
	return u
}

// openLatest shows the history's latest run in Results at start, read
// whole off the UI goroutine, unless a run is shown by then: after a
// restart Results said "No run yet" beside a History full of runs.
func (u *UI) openLatest() {
	latest := u.History.Latest()
	if latest == nil || u.Results.Run() != nil {
		close(u.opened)
		return
	}
	src := u.History.Source()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := src.Get(ctx, latest.UUID)
		fyne.Do(func() {
			defer close(u.opened)
			if err == nil && u.Results.Run() == nil {
				u.Results.SetRun(r, nil)
			}
		})
	}()
}

// ResultsOpened is closed once Results shows the history's latest run at
// start, or found none to show.
func (u *UI) ResultsOpened() <-chan struct{} { return u.opened }

// Tabs is the window's tab bar.
func (u *UI) Tabs() *container.AppTabs { return u.tabs }

// SelectTab shows the tab with the given title.
func (u *UI) SelectTab(title string) {
	for _, it := range u.tabs.Items {
		if it.Text == title {
			u.tabs.Select(it)
		}
	}
}

// Ready is closed once hardware and Docker detection have finished and
// the default target is chosen.
func (u *UI) Ready() <-chan struct{} { return u.ready }

// detect runs hardware and Docker detection off the UI goroutine. The demo
// becomes the target when the machine cannot launch vLLM and the user has
// not chosen one before. Detect again (Hardware) runs it anew; Ready is
// closed after the first.
func (u *UI) detect() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if name, images := u.rigToDetect(); name != rig.LocalName {
		cancel()
		ctx, cancel = context.WithTimeout(context.Background(), rigConnectTimeout+docker.OneShotTimeout)
		defer cancel()
		u.detectOnRig(ctx, name, images)
		return
	}
	snap := u.svc.Detect(ctx)
	dock := hwview.Docker{Checked: true, Problem: "Docker was not checked."}
	if u.svc.Docker != nil {
		dock = u.svc.Docker(ctx)
	}
	fyne.Do(func() {
		u.snapshot = &snap
		u.Launch.SetRigGPUs(rig.LocalName, len(snap.GPUs)) // for a cluster's plan, whichever rig is picked
		// A rig picked while this machine was being detected (a slow
		// driver, a busy machine) owns the views now: this machine's
		// result must not overwrite the rig's, nor clear its pickers'
		// sentence.
		u.mu.Lock()
		local := u.rig.name == rig.LocalName || u.rig.name == ""
		u.mu.Unlock()
		if local {
			u.Hardware.SetOn("")
			u.Hardware.Set(snap, dock)
			u.Launch.SetHardware(snap, dock)
		}
		if u.app.Preferences().String(prefTarget) == "" {
			u.Target.Set(target.Choice{Kind: target.Default(len(snap.GPUs) > 0, dock.Available && dock.NVIDIARuntime)})
		}
		if local {
			for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
				p.SetProblem("")
			}
		}
		// The hook is read before Ready closes: one set by a test once
		// Ready is closed belongs to later detections, not to this one
		// (read after, it caught this machine's first detection as the
		// rig's under a busy scheduler: TestRigPickerShowsAnUnknownHostKey).
		hook := u.detected
		u.readyOnce.Do(func() { close(u.ready) })
		if local && hook != nil {
			hook()
		}
	})
}

func (u *UI) menu() *fyne.MainMenu {
	// Fyne adds a Quit item that quits at once when the menu has none;
	// this one asks first, as the window's close button does.
	quit := fyne.NewMenuItem("Quit", u.Close)
	quit.IsQuit = true
	u.themeMenu = u.newThemeMenu()
	themeItem := fyne.NewMenuItem("Theme", nil)
	themeItem.ChildMenu = u.themeMenu
	return fyne.NewMainMenu(
		fyne.NewMenu("File",
			fyne.NewMenuItem("Import runs…", u.History.ImportDialog),
			fyne.NewMenuItem("Export the run shown…", u.exportShown),
			fyne.NewMenuItemSeparator(),
			quit,
		),
		fyne.NewMenu("View", themeItem),
		fyne.NewMenu("Run",
			fyne.NewMenuItem("Start run", u.startShortcut),
			fyne.NewMenuItem("Cancel run", u.Run.Cancel),
		),
		fyne.NewMenu("Help", fyne.NewMenuItem("About RigBench", u.showAbout)),
	)
}

// startShortcut starts a run from anywhere and shows the Run tab.
func (u *UI) startShortcut() {
	u.SelectTab(TabRun)
	u.Run.Start()
}

// exportShown exports the run shown in Results.
func (u *UI) exportShown() {
	r := u.Results.Run()
	if r == nil {
		dialogkeys.ShowInformation("Nothing to export", "Finish a run or pick one in History first.", u.win)
		return
	}
	u.exportRuns([]*rundoc.Run{r})
}

// Exportable is what an export of runs writes: the runs as the history
// names them now, so a rename in History reaches every export even when
// the run shown was loaded before it.
func (u *UI) Exportable(runs []*rundoc.Run) []*rundoc.Run { return u.History.Current(runs) }

// exportRuns opens the export dialog for runs, named as the history names
// them now.
func (u *UI) exportRuns(runs []*rundoc.Run) { export.Show(u.win, u.app, u.Exportable(runs)) }

// renamed shows a run's new name wherever the run is on screen: Results'
// header and chart subtitles, Compare's columns and legend.
func (u *UI) renamed(uuid, name string) {
	if r := u.Results.Run(); r != nil && r.UUID == uuid {
		c := *r
		c.Name = name
		u.Results.SetRun(&c, nil)
	}
	runs := slices.Clone(u.Compare.Runs())
	changed := false
	for i, r := range runs {
		if r.UUID == uuid {
			c := *r
			c.Name = name
			runs[i], changed = &c, true
		}
	}
	if changed {
		u.Compare.SetRuns(runs, nil)
	}
}

// runFinished shows the run in Results, shows the history with it and
// sends a notification.
func (u *UI) runFinished(r *rundoc.Run, err error) {
	if r == nil {
		if err != nil {
			dialogkeys.ShowError(err, u.win)
		}
		return
	}
	// The run is in the history already (startRun's recorder or keep),
	// or, when it could not be saved, it is counted so that closing asks.
	if !u.saved(r) && hasMeasured(r) {
		u.unsavedRuns++
	}
	u.History.Reload()
	u.Results.SetRun(r, nil)
	msg := fmt.Sprintf("%s: %s", results.Title(r), r.Status)
	if err != nil && r.Status != rundoc.RunCancelled {
		msg += " (" + userText(err) + ")"
	}
	u.app.SendNotification(fyne.NewNotification("RigBench run finished", msg))
}

// saved reports whether r is in the history, where it outlives the app.
func (u *UI) saved(r *rundoc.Run) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.unsavedWhy == "" && !u.notSaved[r.UUID]
}

// hasMeasured reports whether r has a cell that ran: a run without one
// holds nothing to lose.
func hasMeasured(r *rundoc.Run) bool {
	for _, c := range r.Cells {
		if c.Status.Ran() {
			return true
		}
	}
	return false
}

// Close closes the window as its close button does: it asks first when a
// run or a server is still going or this session's runs were not saved,
// then cancels the run and stops the container before the window goes.
func (u *UI) Close() {
	size := u.win.Canvas().Size()
	u.app.Preferences().SetFloat(prefWidth, float64(size.Width))
	u.app.Preferences().SetFloat(prefHeight, float64(size.Height))
	busy := u.Run.Running() || u.Launch.Server() != nil || u.Launch.Starting() || u.Tune.Running()
	if !busy && u.unsavedRuns == 0 {
		u.win.Close()
		return
	}
	title, msg := "Stop and quit?", "A run or a server is still going. Quit RigBench and stop it? Cells measured so far are kept in the history."
	switch {
	case busy && u.unsavedWhy != "":
		msg = "A run or a server is still going, and runs are not being saved to the history. Quit RigBench and stop it? Runs you have not exported are lost."
	case busy && u.unsavedRuns > 0:
		msg = fmt.Sprintf("A run or a server is still going. Quit RigBench and stop it? Cells measured so far are kept in the history, but %s of this session could not be saved and %s lost unless you exported %s.",
			wording.Count(u.unsavedRuns, "earlier run"), isAre(u.unsavedRuns, "is", "are"), isAre(u.unsavedRuns, "it", "them"))
	case !busy:
		title = "Quit without saving?"
		msg = fmt.Sprintf("%s of this session %s not saved to the history and %s lost when RigBench closes, unless you exported %s. Quit anyway?",
			wording.Count(u.unsavedRuns, "run"), isAre(u.unsavedRuns, "was", "were"), isAre(u.unsavedRuns, "is", "are"), isAre(u.unsavedRuns, "it", "them"))
	}
	d := dialog.NewConfirm(title, msg, func(ok bool) {
		if !ok {
			return
		}
		u.Run.Cancel()
		u.Tune.Stop() // a sweep keeps its finished variants
		done, tuneDone := u.Run.Done(), u.Tune.Done()
		go func() {
			limit := time.After(30 * time.Second)
			select {
			case <-done:
			case <-limit:
			}
			select {
			case <-tuneDone:
			case <-limit:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			u.Launch.StopAndWait(ctx)
			cancel()
			fyne.Do(u.win.Close)
		}()
	}, u.win)
	d.SetConfirmText("Quit")
	d.SetDismissText("Keep RigBench open")
	// Quitting may lose runs: the button is in the danger colour, and Enter
	// and Escape keep RigBench open.
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
	dialogkeys.Bind(u.win, d, d.Dismiss)
}

// isAre is one when n is 1, else many.
func isAre(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
