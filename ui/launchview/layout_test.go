package launchview

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/ui/target"
)

// In a 900×600 window the whole docker preview is on screen above the Start
// button (a fixed split cut it mid-line); a start-up failure is scrolled
// into view and does not make the window grow.
func TestSmallWindowShowsWholePreview(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	defer w.Close()
	v := New(a, w, target.NewChooser(target.Launch), nil)
	w.SetContent(v.Content())
	w.Resize(fyne.NewSize(900, 600))
	v.Form.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	v.Form.SetFlagText("--max-model-len", "32768")
	for _, step := range []string{"the form", "a failure"} {
		if step == "a failure" {
			v.Start() // no launcher: fails with a sentence
		}
		// Below the preview come the Start button, then the log pane: the
		// preview is whole when it ends above the button and the button
		// above the log (the top part scrolls, so nothing else shows a cut).
		d := fyne.CurrentApp().Driver()
		bottom := d.AbsolutePositionForObject(v.Form.docker).Y + v.Form.docker.Size().Height
		start := d.AbsolutePositionForObject(v.startBtn).Y
		log := d.AbsolutePositionForObject(v.logs.box).Y
		if bottom > start || start+v.startBtn.Size().Height > log {
			t.Errorf("with %s the docker preview ends at %.0f, the Start button spans %.0f–%.0f, the log starts at %.0f",
				step, bottom, start, start+v.startBtn.Size().Height, log)
		}
		if step == "a failure" {
			top := d.AbsolutePositionForObject(v.topScroll).Y
			at := d.AbsolutePositionForObject(v.failure).Y
			if at < top || at+v.failure.Size().Height > log {
				t.Errorf("the failure spans %.0f–%.0f, outside the visible %.0f–%.0f", at, at+v.failure.Size().Height, top, log)
			}
		}
		if s := w.Canvas().Size(); s.Height > 600 || s.Width > 900 {
			t.Errorf("with %s the window grew to %v", step, s)
		}
	}
}
