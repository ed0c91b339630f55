//go:build !race

// The "Will it fit?" panel's answer comes through fyne.Do from a goroutine,
// which Fyne's test driver runs inline there (see hardware_test.go): make
// test runs this file without -race.

package launchview

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/predicted"
	"github.com/rigbench/rigbench/ui/target"
)

// With "Will it fit?" showing a launch that does not fit (its fixes make
// it tallest), a 900×600 window keeps the whole docker preview above the
// Start button, the button above the log, and does not grow; the panel
// itself scrolls into view.
func TestFitPanelKeepsStartOnScreenAt900x600(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	defer w.Close()
	v := New(a, w, target.NewChooser(target.Launch), nil)
	shown := make(chan struct{}, 16)
	v.fit.live.OnShown = func() {
		select {
		case shown <- struct{}{}:
		default:
		}
	}
	w.SetContent(v.Content())
	w.Resize(fyne.NewSize(900, 600))
	v.SetPrediction(predicted.Source{CacheDir: t.TempDir()})
	v.SetHardware(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060", VRAMTotalBytes: 12 << 30, MemoryBandwidthGBs: 360}}},
		hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true})
	v.Form.SetModel("agents/a1-4b-fp8")
	v.Form.SetFlagText("--gpu-memory-utilization", "0.65")
	deadline := time.After(time.Minute)
	for v.FitPending() || !strings.HasPrefix(v.FitVerdict(), "Does not fit") {
		select {
		case <-shown:
		case <-deadline:
			t.Fatalf("no verdict in a minute: %q", v.FitText())
		}
	}
	d := fyne.CurrentApp().Driver()
	bottom := d.AbsolutePositionForObject(v.Form.docker).Y + v.Form.docker.Size().Height
	start := d.AbsolutePositionForObject(v.startBtn).Y
	log := d.AbsolutePositionForObject(v.logs.box).Y
	if bottom > start || start+v.startBtn.Size().Height > log {
		t.Errorf("the docker preview ends at %.0f, the Start button spans %.0f–%.0f, the log starts at %.0f",
			bottom, start, start+v.startBtn.Size().Height, log)
	}
	if s := w.Canvas().Size(); s.Height > 600 || s.Width > 900 {
		t.Errorf("the window grew to %v", s)
	}
	v.RevealFit()
	fix := v.FitFixButton("Apply: --max-model-len 37888")
	if fix == nil {
		t.Fatalf("no fix button among %q", v.FitFixes())
	}
	top := d.AbsolutePositionForObject(v.topScroll).Y
	at := d.AbsolutePositionForObject(fix).Y
	if at < top || at+fix.Size().Height > top+v.topScroll.Size().Height {
		t.Errorf("scrolled to the panel, its fix spans %.0f–%.0f, outside the visible %.0f–%.0f",
			at, at+fix.Size().Height, top, top+v.topScroll.Size().Height)
	}
}
