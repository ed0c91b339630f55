//go:build tour

package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/ui/rigpick"
	"github.com/rigbench/rigbench/ui/target"
)

func init() { tourHook = (*UI).tour }

// ReferenceEnv may name a reference CSV the tour imports so the Compare
// view has two runs to show.
const ReferenceEnv = "RIGBENCH_TOUR_REFERENCE"

// tour walks the views. It runs on its own goroutine and touches the UI
// only through fyne.Do / fyne.DoAndWait. It is one long script on purpose
// (over the house's 80 lines): the shots are taken in the order a user
// meets the views, each step reads as that step, and it builds only with
// -tags tour, never into the shipping app.
func (u *UI) tour(dir string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "rigbench tour:", err)
		u.tourFailed.Store(true)
		fyne.Do(u.app.Quit)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
		return
	}
	// The tour shows a comparison and a History of more than one run: it
	// needs the reference run to import.
	ref := os.Getenv(ReferenceEnv)
	if ref == "" {
		fail(fmt.Errorf("%s is not set: the tour imports the reference run to show History and Compare (scripts/screenshots.sh sets it)", ReferenceEnv))
		return
	}
	<-u.ready
	if w, h, ok := parseSize(os.Getenv(TourSizeEnv)); ok {
		fyne.DoAndWait(func() { u.win.Resize(fyne.NewSize(w, h)) })
	}

	// ImageMagick's import grabs the window as the X server shows it;
	// Fyne's Canvas().Capture() reads back a blank framebuffer under Xvfb's
	// software GL, so it is only the fallback.
	importCmd, _ := exec.LookPath("import")
	shot := func(name string, settle time.Duration) {
		time.Sleep(settle)
		path := filepath.Join(dir, name+".png")
		if importCmd != "" && os.Getenv("DISPLAY") != "" {
			if out, err := exec.Command(importCmd, "-window", "root", path).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "rigbench tour: import: %v: %s\n", err, out)
			}
			return
		}
		var img image.Image
		fyne.DoAndWait(func() { img = u.win.Canvas().Capture() })
		if err := safefile.Write(path, func(w io.Writer) error { return png.Encode(w, img) }); err != nil {
			fmt.Fprintln(os.Stderr, "rigbench tour:", err)
		}
	}
	step := func(f func()) { fyne.DoAndWait(f) }

	step(func() { u.SelectTab(TabHardware) })
	shot("1-hardware", time.Second)

	// The rig picker: an SSH rig typed into Add rig, then picked. The
	// tour's fresh HOME has no ~/.ssh, so the rig is refused in its one
	// sentence, which the Hardware and Launch views show; then back to
	// Local for the rest of the tour.
	step(func() {
		u.HardwareRig.Pick(rigpick.AddLabel)
		u.HardwareRig.SetEntry("ssh://me@basement")
	})
	shot("1b-hardware-add-rig", 800*time.Millisecond)
	rigDetected := make(chan struct{}, 1)
	step(func() {
		u.detected = func() {
			select {
			case rigDetected <- struct{}{}:
			default:
			}
		}
		u.HardwareRig.Add()
	})
	select {
	case <-rigDetected:
	case <-time.After(rigConnectTimeout + 5*time.Second):
		fail(errors.New("the rig picker's detection did not finish"))
		return
	}
	shot("1c-hardware-rig", 800*time.Millisecond)
	step(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		u.SelectTab(TabLaunch)
	})
	shot("1d-launch-rig", time.Second)
	step(func() { u.LaunchRig.Pick(rigpick.LocalLabel) })
	<-rigDetected
	step(func() { u.detected = nil })

	step(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		u.Launch.PasteCommand(`docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen2.5-1.5B-Instruct --max-model-len 32768 --gpu-memory-utilization 0.92 --max-num-seqs 64 --enable-prefix-caching`)
		u.SelectTab(TabLaunch)
	})
	shot("2-launch", time.Second)

	// The demo takes the Launch page's flags: back to vLLM's defaults, so
	// the demo reads like the reference card (the pasted command's 32K
	// --max-model-len would drop the 64K row).
	step(func() {
		u.Target.Set(target.Choice{Kind: target.Demo})
		u.Launch.ApplyPreset("Untuned baseline")
		u.SelectTab(TabLaunch)
	})
	shot("2b-launch-demo", time.Second)
	u.tourDemoPaste(step, shot)
	u.tourFit(step, shot)
	// What a fresh start's Run tab offers: the quick plan, the speed and
	// the estimate beside Start (issue 41: the first demo read 34 min).
	step(func() { u.SelectTab(TabRun) })
	shot("3a-run-first", 800*time.Millisecond)

	runDone := make(chan struct{})
	step(func() {
		// The reference run's plan on fewer cells, with the app's default
		// adaptive windows (at most 30 s of the simulated card's time, one
		// real second at the tour's speed) and 8192 output tokens, so its
		// figures read like the card's, each with its ±.
		u.Run.SetPlanText("0, 16K, 32K, 64K", "1, 2, 4, 8, 16, 32", "8K, 16K, 32K", rundoc.WindowAuto, "8192")
		prev := u.Run.OnFinished
		u.Run.OnFinished = func(r *rundoc.Run, err error) {
			prev(r, err)
			u.Run.OnFinished = prev
			close(runDone)
		}
		u.SelectTab(TabRun)
	})
	shot("3-run-plan", 800*time.Millisecond)
	if err := u.tourQuality(step, shot); err != nil {
		fail(err)
		return
	}
	step(u.Run.Start)
	shot("4-run-live", 6*time.Second)
	select {
	case <-runDone:
	case <-time.After(5 * time.Minute):
		fail(fmt.Errorf("the demo run did not finish in 5 minutes"))
		return
	}
	step(func() { u.SelectTab(TabRun) })
	shot("5-run-done", 800*time.Millisecond)

	step(func() { u.SelectTab(TabResults) })
	shot("6-results-matrix", time.Second)
	// A click on a cell: its details (window, ramp, ±, the server's
	// cross-check, notes, what limits it).
	step(func() {
		if c := u.Results.Matrix().Cell(16384, 8); c != nil {
			c.Tapped(&fyne.PointEvent{})
		}
	})
	shot("6b-results-cell-details", 800*time.Millisecond)
	step(u.closeDialogs)
	step(func() { u.Results.Tabs().SelectIndex(2) })
	shot("7-results-table", 800*time.Millisecond)
	step(func() { u.Results.Tabs().SelectIndex(3) })
	shot("8-results-charts", 2*time.Second)
	step(func() { u.Results.Tabs().SelectIndex(4) })
	shot("8b-results-diagnosis", 800*time.Millisecond)

	imported := make(chan error, 1)
	step(func() { u.History.Import(ref, func(_ *rundoc.Run, err error) { imported <- err }) })
	if err := <-imported; err != nil {
		fail(fmt.Errorf("importing the reference run %s: %w", ref, err))
		return
	}
	listed := make(chan struct{})
	step(func() {
		u.History.ReloadThen(func() { close(listed) })
		u.SelectTab(TabHistory)
	})
	<-listed
	var n int
	step(func() { n = len(u.History.Shown()) })
	if n < 2 {
		fail(fmt.Errorf("the history lists %d run(s) after the demo run and the import, want 2 to compare", n))
		return
	}
	time.Sleep(time.Second)
	step(func() {
		for _, r := range u.History.Shown() {
			u.History.Toggle(r.UUID)
		}
	})
	shot("9-history", 800*time.Millisecond)

	// The history lists runs without cells: read the ticked ones whole.
	var sel []*rundoc.Run
	step(func() { sel = u.History.Selected() })
	var full []*rundoc.Run
	for _, r := range sel {
		g, err := u.History.Source().Get(context.Background(), r.UUID)
		if err != nil {
			fail(err)
			return
		}
		full = append(full, g)
	}
	compared := make(chan struct{})
	step(func() {
		u.Compare.SetRuns(full, func() { close(compared) })
		u.SelectTab(TabCompare)
	})
	<-compared
	shot("10-compare", time.Second)
	u.tourTune(step, shot)
	if err := u.tourAfterTune(dir, step, shot); err != nil {
		fail(err)
		return
	}
	u.tourDelete(step, shot)
	u.tourThemeSwitch(step, shot)
	u.tourAbout(step, shot)
	fyne.Do(u.app.Quit)
}

// parseSize reads "WxH" in Fyne units.
func parseSize(s string) (w, h float32, ok bool) {
	ws, hs, found := strings.Cut(strings.ToLower(s), "x")
	if !found {
		return 0, 0, false
	}
	wf, err1 := strconv.ParseFloat(ws, 32)
	hf, err2 := strconv.ParseFloat(hs, 32)
	if err1 != nil || err2 != nil || wf < 100 || hf < 100 {
		return 0, 0, false
	}
	return float32(wf), float32(hf), true
}
