//go:build !race

package ui_test

import (
	"context"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
)

// runDemo runs a small plan on the demo and returns the finished run.
func runDemo(t *testing.T, u *ui.UI) *rundoc.Run {
	t.Helper()
	return runWith(t, u, u.Run.Start)
}

// runWith calls start on the Fyne goroutine (a Start, a Resume) and
// returns the run it began once it has finished.
func runWith(t *testing.T, u *ui.UI, start func()) *rundoc.Run {
	t.Helper()
	var finished *rundoc.Run
	var runErr error
	ended := make(chan struct{})
	fyne.DoAndWait(func() {
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *rundoc.Run, err error) {
			prev(r, err)
			u.Run.OnFinished = prev
			finished, runErr = r, err
			close(ended)
		}
		start()
	})
	select {
	case <-ended:
	case <-time.After(90 * time.Second):
		t.Fatal("the run did not finish in 90 s")
	}
	if runErr != nil {
		t.Fatalf("demo run: %v", runErr)
	}
	return finished
}

// Item 2 of issue 16: the demo explains itself on the Launch page, offers
// a speed (the estimate follows it, figures stay in card time) and takes
// the launch form's vLLM flags, which change the simulated server and are
// recorded with the run.
func TestDemoTakesSpeedAndFlags(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		if !u.Launch.DemoShown() {
			t.Error("the Launch page shows no demo panel with the demo chosen")
		}
		if u.Launch.HardwareWarning() == "" {
			t.Error("the no-GPU warning is gone (it should only hide while the demo is chosen)")
		}
		if m := u.Launch.Form.GeneralMessage(); m != "" {
			t.Errorf("the demo's flag form says %q; the demo needs no model, image or GPUs", m)
		}
		// The test services ask for speed 20 (as RIGBENCH_SIM_SPEED would).
		if s := u.Launch.DemoSpeed(); s != 20 {
			t.Errorf("demo speed = %g, want the services' 20", s)
		}
		u.Run.SetPlanText("0, 1K", "1, 2", "1K", "30", "64")
		slow := u.Run.Estimate()
		u.Launch.PickDemoSpeed(100)
		if f := u.Run.Facts(); f.Speed != 100 {
			t.Errorf("after picking 100× the run view's speed is %g", f.Speed)
		}
		if fast := u.Run.Estimate(); fast == slow {
			t.Errorf("the estimate %q did not change with the speed", fast)
		}
		if !u.Launch.Form.SetFlagText("--max-model-len", "4096") {
			t.Fatal("--max-model-len has no text field")
		}
		if f := u.Run.Facts(); f.MaxModelLen != 4096 {
			t.Errorf("demo max model length = %d after --max-model-len 4096", f.MaxModelLen)
		}
		cmd, problem := u.Launch.DemoText()
		if !strings.Contains(cmd, "--max-model-len 4096") || !strings.Contains(cmd, "--speed 100") || problem != "" {
			t.Errorf("demo command %q (problem %q), want the flag and the speed", cmd, problem)
		}
		u.Launch.Form.SetFlagText("--max-num-seqs", "2")
	})
	r := runDemo(t, u)
	if r.Launch == nil || !slices.Contains(r.Launch.Args, "--max-num-seqs") {
		t.Fatalf("the demo run did not record its flags: %+v", r.Launch)
	}
	if r.Server.MaxModelLen != 4096 {
		t.Errorf("the simulated server reported max_model_len %d, want the form's 4096", r.Server.MaxModelLen)
	}
	// Window lengths are the plan's 30 s in card time, whatever the speed.
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode && c.Status.Ran() && c.MeasuredS < 20 {
			t.Errorf("cell %d×%d window %.1f s, want about the plan's 30 s of card time", c.Context, c.Concurrency, c.MeasuredS)
		}
	}
	// An argument vLLM would refuse is said at once, and Start refuses it.
	fyne.DoAndWait(func() {
		u.Launch.Form.SetConfig(withExtra(u.Launch.Form.Config(), "--bogus-flag", "3"))
		if _, problem := u.Launch.DemoText(); !strings.Contains(problem, "--bogus-flag") {
			t.Errorf("demo problem %q, want it to name --bogus-flag", problem)
		}
	})
}

// withExtra returns c with args appended to its extra arguments.
func withExtra(c vllm.LaunchConfig, args ...string) vllm.LaunchConfig {
	c.Extra = append(append([]string(nil), c.Extra...), args...)
	return c
}

// Issue 16 item 1: Compare has its own Export button, which opens the
// export dialog for the compared runs.
func TestCompareExportOpensDialog(t *testing.T) {
	u, w := newUI(t)
	ref := referenceRun(t)
	imported, err := history.ImportFile(context.Background(), u.History.Source(), ref)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	second := *imported
	second.UUID, second.Name = uuid.NewString(), "second"
	fyne.DoAndWait(func() {
		u.Compare.SetRuns([]*rundoc.Run{imported, &second}, nil)
		u.SelectTab(ui.TabCompare)
		if w.Canvas().Overlays().Top() != nil {
			t.Fatal("a dialog is open before Export")
		}
		u.Compare.Export()
		if w.Canvas().Overlays().Top() == nil {
			t.Error("Export opened no dialog")
		}
	})
}

// Issue 16 item 5: History lists a run while it writes, names runs so they
// tell apart, shows the flags that differ from vLLM's defaults, says when
// a filter matches nothing, names the run it would delete, opens rename
// with the name shown, and gives an imported reference file's model the
// simulator's spelling.
func TestHistoryTellsRunsApart(t *testing.T) {
	if testing.Short() {
		t.Skip("a journey through the app with demo runs in real time (5 s or more): skipped with -short (make test runs it)")
	}
	u, w := newUI(t)
	fyne.DoAndWait(func() {
		u.Launch.PickDemoSpeed(100)
		u.Run.SetPlanText("0, 1K", "1, 2", "1K", "30", "64")
		u.Launch.Form.SetFlagText("--max-num-seqs", "2")
	})
	// While the first run writes, History lists it.
	seen := make(chan bool, 1)
	go func() {
		for i := 0; i < 1500; i++ {
			var running, listed bool
			fyne.DoAndWait(func() {
				running = u.Run.Running()
				listed = len(u.History.Shown()) == 1
			})
			if running && listed {
				seen <- true
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		seen <- false
	}()
	first := runDemo(t, u)
	if !<-seen {
		t.Error("History did not list the run while it was writing")
	}
	fyne.DoAndWait(func() { u.Launch.ApplyPreset("Untuned baseline") })
	second := runDemo(t, u)
	if first.Name == second.Name || !strings.Contains(first.Name, "max-num-seqs 2") || !strings.Contains(second.Name, "vLLM defaults") {
		t.Errorf("default names %q and %q, want them to differ by their flags", first.Name, second.Name)
	}
	reloaded(t, u)
	fyne.DoAndWait(func() {
		var flags []string
		for row := range u.History.Shown() {
			flags = append(flags, u.History.Cell(row, 6))
		}
		if !slices.Contains(flags, "max-num-seqs 2") || !slices.Contains(flags, "") {
			t.Errorf("Flags column = %q, want max-num-seqs 2 for the first run and nothing for the untuned one", flags)
		}
		u.History.SetFilter("no-such-run")
		if m := u.History.EmptyMessage(); !strings.Contains(m, "No run matches") || !strings.Contains(m, "2 runs") {
			t.Errorf("empty filter message %q", m)
		}
		u.History.SetFilter("max-num-seqs")
		if n := len(u.History.Shown()); n != 1 || u.History.EmptyMessage() != "" {
			t.Errorf("filtering by a flag lists %d runs (message %q), want 1", n, u.History.EmptyMessage())
		}
		u.History.SetFilter("")
		_, msg := history.DeletePrompt([]*rundoc.Run{first})
		if !strings.Contains(msg, first.Name) {
			t.Errorf("delete prompt %q does not name the run %q", msg, first.Name)
		}
		u.History.Toggle(first.UUID)
	})
	fyne.DoAndWait(u.History.Rename)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var e fyne.CanvasObject
		fyne.DoAndWait(func() {
			if f := u.History.RenameField(); f != nil {
				e = f
				if f.Text != first.Name {
					t.Errorf("rename starts with %q, want %q", f.Text, first.Name)
				}
				if wd := f.Size().Width; wd < 400 {
					t.Errorf("rename field is %.0f px wide", wd)
				}
			}
		})
		if e != nil || time.Now().After(deadline) {
			if e == nil {
				t.Error("the rename dialog did not open")
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = w
	// A reference file names the model with "-" for "/" (the published
	// name; the test data's has a "ref_" prefix).
	data, err := os.ReadFile(referenceRun(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	imported, err := history.ImportFile(context.Background(), u.History.Source(), path)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if imported.Server.Model != first.Server.Model {
		t.Errorf("imported model %q, the demo's %q: one model under two names", imported.Server.Model, first.Server.Model)
	}
}

// reloaded waits for the history list to be read again.
func reloaded(t *testing.T, u *ui.UI) {
	t.Helper()
	done := make(chan struct{})
	fyne.DoAndWait(func() { u.History.ReloadThen(func() { close(done) }) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the history did not reload")
	}
}

// Issue 16 item 8: View ▸ Theme switches between light, dark and the
// system's, and is remembered; Hardware's Detect again detects anew.
func TestThemeMenuAndDetectAgain(t *testing.T) {
	u, w := newUI(t)
	var themeMenu *fyne.Menu
	for _, m := range w.MainMenu().Items {
		for _, it := range m.Items {
			if it.Label == "Theme" {
				themeMenu = it.ChildMenu
			}
		}
	}
	if themeMenu == nil || len(themeMenu.Items) != 3 {
		t.Fatalf("no View ▸ Theme menu with three choices: %+v", themeMenu)
	}
	bg := func() color.Color {
		return fyne.CurrentApp().Settings().Theme().Color(theme.ColorNameBackground, theme.VariantLight)
	}
	fyne.DoAndWait(func() { themeMenu.Items[2].Action() }) // Dark
	if r, _, _, _ := bg().RGBA(); r > 0x8000 || u.ThemeChoice() != ui.ThemeDark || !themeMenu.Items[2].Checked || themeMenu.Items[0].Checked {
		t.Errorf("after Dark: background red %#x, choice %q, ticks %v/%v", r, u.ThemeChoice(), themeMenu.Items[0].Checked, themeMenu.Items[2].Checked)
	}
	fyne.DoAndWait(func() { themeMenu.Items[1].Action() }) // Light
	if r, _, _, _ := bg().RGBA(); r < 0x8000 || u.ThemeChoice() != ui.ThemeLight {
		t.Errorf("after Light: background red %#x, choice %q", r, u.ThemeChoice())
	}

	detected := make(chan struct{}, 4)
	svc := testServices()
	prev := svc.Detect
	svc.Detect = func(ctx context.Context) hardware.Snapshot { detected <- struct{}{}; return prev(ctx) }
	u2, _ := newUIWith(t, svc)
	<-detected
	fyne.DoAndWait(u2.Hardware.DetectAgain)
	select {
	case <-detected:
	case <-time.After(10 * time.Second):
		t.Fatal("Detect again did not detect")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var s string
		fyne.DoAndWait(func() { s = u2.Hardware.Summary.Text })
		if strings.Contains(s, "none detected") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Detect again the Hardware view says %q", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 16 item 4: "Start anyway" on a computer whose Docker cannot reach
// its registry (an unknown host, as on a machine without network) says in
// one sentence that the image could not be downloaded, why and what to
// do, and the log does not stay at "Checking image …". It uses the real
// Docker daemon (skipped without one).
func TestStartAnywayWithoutRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	l, err := docker.New(ctx, docker.WithoutGPU())
	cancel()
	if err != nil {
		t.Skipf("no Docker daemon: %v", err)
	}
	l.Close()
	svc := testServices()
	svc.Launch = ui.DefaultServices().Launch
	u, _ := newUIWith(t, svc)
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		c := u.Launch.Form.Config()
		c.Model, c.Image, c.Tag, c.Port = "Qwen/Qwen2.5-0.5B-Instruct", "rigbench.invalid/none", "latest", 0
		u.Launch.Form.SetConfig(c)
		u.Launch.Start()
		if _, fix := u.Launch.Failure(); fix != "Start anyway" {
			t.Fatalf("no Start anyway offered without a GPU (fix %q)", fix)
		}
		u.Launch.ApplyFix()
	})
	var text, tail string
	for i := 0; i < 1200; i++ {
		fyne.DoAndWait(func() { text, _ = u.Launch.Failure(); tail = u.Launch.LogTail() })
		if strings.HasPrefix(tail, "Start failed") || strings.HasPrefix(text, "Fix the form") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.HasPrefix(text, "The image rigbench.invalid/none:latest could not be downloaded because this computer cannot reach rigbench.invalid") ||
		strings.Contains(text, "Error response from daemon") {
		t.Errorf("failure %q, want the one-sentence pull explanation", text)
	}
	if !strings.HasPrefix(tail, "Start failed") {
		t.Errorf("the log ends with %q, want the failure", tail)
	}
}

// Issue 16 item 6: the Run view names the target, an endpoint's URL
// included.
func TestRunViewNamesTheTarget(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		if got := u.Run.Target(); !strings.Contains(got, "demo") {
			t.Errorf("demo target line %q", got)
		}
		u.Target.Set(target.Choice{Kind: target.Endpoint, URL: "http://127.0.0.1:8123"})
		if got := u.Run.Target(); !strings.Contains(got, "http://127.0.0.1:8123") {
			t.Errorf("endpoint target line %q, want the URL", got)
		}
		u.Target.Set(target.Choice{Kind: target.Launch})
		if got := u.Run.Target(); !strings.Contains(got, "not started") {
			t.Errorf("launch target line %q", got)
		}
	})
}

// Every tab fits a 900×600 window: the tab bar is as wide as its widest
// tab, so one wide view cut every page at the right.
func TestEveryTabFits900(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		for _, it := range u.Tabs().Items {
			if w := it.Content.MinSize().Width; w > 900 {
				t.Errorf("the %s tab needs %.0f units, more than a 900 px window", it.Text, w)
			}
		}
	})
}

// Light theme: low-importance text (each flag's help) reads at 3:1 or
// more against the background; Fyne's own grey was about 1.3:1.
func TestLightThemeHelpTextReadable(t *testing.T) {
	helpTextReadable(t, ui.ThemeLight, theme.VariantLight)
}

// Issue 24 item 14: so is it in the dark theme, where Fyne's grey was
// about 1.6:1 against the near-black background.
func TestDarkThemeHelpTextReadable(t *testing.T) {
	helpTextReadable(t, ui.ThemeDark, theme.VariantDark)
}

func helpTextReadable(t *testing.T, choice string, variant fyne.ThemeVariant) {
	t.Helper()
	u, _ := newUI(t)
	fyne.DoAndWait(func() { u.SetTheme(choice) })
	th := fyne.CurrentApp().Settings().Theme()
	lum := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		lin := func(x uint32) float64 {
			v := float64(x) / 0xffff
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	}
	fg, bg := lum(th.Color(theme.ColorNameDisabled, variant)), lum(th.Color(theme.ColorNameBackground, variant))
	if ratio := (max(fg, bg) + 0.05) / (min(fg, bg) + 0.05); ratio < 3 {
		t.Errorf("low-importance text contrast %.1f:1, want 3:1 or more", ratio)
	}
}

// A model that launched is remembered first in the model drop-down's
// list (the list was read at start-up but never written).
func TestLaunchedModelIsRemembered(t *testing.T) {
	svc := testServices()
	svc.Launch = func(ctx context.Context, cfg vllm.LaunchConfig, p launchview.Progress) (*session.Server, error) {
		return &session.Server{Endpoint: "http://127.0.0.1:9", Model: cfg.Model, Record: &rundoc.Launch{Model: cfg.Model}}, nil
	}
	u, _ := newUIWith(t, svc)
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		c := u.Launch.Form.Config()
		c.Model, c.GPUs = "Qwen/Qwen2.5-0.5B-Instruct", ""
		u.Launch.Form.SetConfig(c)
		u.Launch.Start()
	})
	var got []string
	for i := 0; i < 400 && (len(got) == 0 || got[0] != "Qwen/Qwen2.5-0.5B-Instruct"); i++ {
		time.Sleep(10 * time.Millisecond)
		fyne.DoAndWait(func() { got = fyne.CurrentApp().Preferences().StringList("launch.recent_models") })
	}
	if len(got) == 0 || got[0] != "Qwen/Qwen2.5-0.5B-Instruct" {
		t.Fatalf("recent models %q after a launch", got)
	}
}

// Issue 41, major 1: a fresh start gives a first demo result within a
// minute. The app opens with the quick plan at session.FirstDemoSpeed (no
// test speed here: the services leave it to the app), says the speed and
// the estimate beside Start, keeps the full matrix one click away, and the
// first Start with those defaults measures every cell of the quick plan.
func TestFirstDemoIsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the first demo in real time (about 15 s): skipped with -short (make test runs it)")
	}
	svc := testServices()
	svc.SimSpeed = 0 // the app's own first speed, not the tests' 20×
	u, _ := newUIWith(t, svc)
	var quickNote string
	fyne.DoAndWait(func() {
		if s := u.Launch.DemoSpeed(); s != session.FirstDemoSpeed {
			t.Errorf("first demo speed %g×, want %g×", s, float64(session.FirstDemoSpeed))
		}
		p, err := u.Run.Plan()
		if err != nil {
			t.Fatal(err)
		}
		if q := rundoc.QuickPlan(); !slices.Equal(p.Contexts, q.Contexts) || !slices.Equal(p.Concurrency, q.Concurrency) ||
			!slices.Equal(p.PrefillContexts, q.PrefillContexts) {
			t.Errorf("first plan %v × %v, prefill %v; want the quick plan %v × %v, prefill %v",
				p.Contexts, p.Concurrency, p.PrefillContexts, q.Contexts, q.Concurrency, q.PrefillContexts)
		}
		cfg, err := session.DemoConfig(u.Launch.Form.Config(), session.FirstDemoSpeed)
		if err != nil {
			t.Fatal(err)
		}
		f, err := session.DemoFacts(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := session.Estimate(session.Predict(p, f), f, nil)
		quickNote = u.Run.StartNote()
		if want := "Demo at 10× · about " + rundoc.ShortDuration(d); quickNote != want {
			t.Errorf("beside Start: %q, want %q", quickNote, want)
		}
		u.Run.PickFullMatrix()
		full, _ := u.Run.Plan()
		if def := rundoc.DefaultPlan(); !slices.Equal(full.Contexts, def.Contexts) || !slices.Equal(full.Concurrency, def.Concurrency) {
			t.Errorf("Full matrix gave %v × %v, want %v × %v", full.Contexts, full.Concurrency, def.Contexts, def.Concurrency)
		}
		if n := u.Run.StartNote(); n == quickNote || !strings.HasPrefix(n, "Demo at 10× · about ") {
			t.Errorf("beside Start with the full matrix: %q (quick plan: %q)", n, quickNote)
		}
		u.Run.PickQuickPlan()
		if n := u.Run.StartNote(); n != quickNote {
			t.Errorf("back on the quick plan, beside Start: %q, want %q", n, quickNote)
		}
	})
	began := time.Now()
	r := runDemo(t, u)
	t.Logf("first demo: %s, result after %v", quickNote, time.Since(began).Round(100*time.Millisecond))
	q := rundoc.QuickPlan()
	for _, c := range q.Contexts {
		for _, n := range q.Concurrency {
			if cell := r.Find(rundoc.PhaseDecode, c, n); cell == nil || cell.Status != rundoc.StatusValid {
				t.Errorf("decode %d×%d of the first demo: %+v, want Valid", c, n, cell)
			}
		}
	}
	if cell := r.Find(rundoc.PhasePrefill, q.PrefillContexts[0], 1); cell == nil || cell.Status != rundoc.StatusValid {
		t.Errorf("prefill %d of the first demo: %+v, want Valid", q.PrefillContexts[0], cell)
	}
}
