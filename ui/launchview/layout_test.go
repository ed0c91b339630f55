package launchview

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
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

// Issue 41 minor 7: on a rig, with the picker and a banner above the form,
// the paste box under the previews is whole on screen before a launch (an
// empty log pane kept 120 units and pushed it under the Start row); once a
// launch starts, the log gets its room back.
func TestPasteBoxShowsOnARigInASmallWindow(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	defer w.Close()
	v := New(a, w, target.NewChooser(target.Launch), nil)
	v.SetRigPicker(widget.NewLabel("Rig ssh://me@basement\nRig ssh://me@basement: no SSH key to offer me@basement:22"))
	w.SetContent(v.Content())
	w.Resize(fyne.NewSize(900, 500))
	v.SetRigHardware(hardware.Snapshot{GPUs: []hardware.GPU{}}, hwview.Docker{Checked: true, Available: true, Version: "27.1"})
	d := fyne.CurrentApp().Driver()
	paste := d.AbsolutePositionForObject(v.pasteRow).Y + v.pasteRow.Size().Height
	shown := d.AbsolutePositionForObject(v.topScroll).Y + v.topScroll.Size().Height
	if paste > shown {
		t.Errorf("the paste box ends at %.0f, below the previews' visible end at %.0f", paste, shown)
	}
	v.logShown = true // as Start sets it
	v.relayout()
	if h := v.logs.box.Size().Height; h < 120 {
		t.Errorf("once a launch started the log pane is %.0f high, want 120 or more", h)
	}
}

// Issue 41 minor 16: the mouse wheel over a flag's number field scrolls
// the flag list (the field's own scroller took the wheel and the list
// barely moved).
func TestWheelOverAFlagFieldScrollsTheList(t *testing.T) {
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	defer w.Close()
	v := New(a, w, target.NewChooser(target.Launch), nil)
	w.SetContent(v.Content())
	w.Resize(fyne.NewSize(1280, 800))
	d := fyne.CurrentApp().Driver()
	var field *widget.Entry
	for _, r := range v.Form.rows {
		if r.sl != nil && r.entry != nil && r.entry.Visible() && r.entry.Size().Height > 0 {
			field = r.entry
			break
		}
	}
	if field == nil {
		t.Fatal("no flag with a number field and a slider is on screen")
	}
	list := scrollerOf(t, v.Content(), field)
	before := list.Offset.Y
	at := d.AbsolutePositionForObject(field).Add(fyne.NewPos(field.Size().Width/2, field.Size().Height/2))
	test.Scroll(w.Canvas(), at, 0, -120)
	if list.Offset.Y <= before {
		t.Errorf("the wheel over a flag's field left the list at %.0f (was %.0f)", list.Offset.Y, before)
	}
}

// scrollerOf is the vertical scroller under root that holds o.
func scrollerOf(t *testing.T, root fyne.CanvasObject, o fyne.CanvasObject) *container.Scroll {
	t.Helper()
	var found *container.Scroll
	var walk func(x fyne.CanvasObject, in *container.Scroll)
	walk = func(x fyne.CanvasObject, in *container.Scroll) {
		if s, ok := x.(*container.Scroll); ok && s.Direction == container.ScrollVerticalOnly {
			in = s
		}
		if x == o {
			found = in
			return
		}
		switch c := x.(type) {
		case *fyne.Container:
			for _, k := range c.Objects {
				walk(k, in)
			}
		case fyne.Widget:
			for _, k := range test.TempWidgetRenderer(t, c).Objects() {
				walk(k, in)
			}
		}
	}
	walk(root, nil)
	if found == nil {
		t.Fatal("the field is in no vertical scroller")
	}
	return found
}
