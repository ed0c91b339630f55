package launchview

import "fyne.io/fyne/v2"

// topFirst stacks two objects: the first (the previews in a scroller, with
// the server's buttons and messages below) gets the height it needs,
// the second (the log pane) what is left, but never less than minBottom
// (read at each layout: the log needs room only once a launch fills it).
// A split with a fixed ratio cut the docker line mid-way in a small window;
// scrollers of their own let neither part force the window to grow.
type topFirst struct {
	want      func() float32 // the height the top part needs
	minBottom func() float32
}

// Layout places objects[0] above objects[1].
func (t topFirst) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) < 2 {
		return
	}
	pad := float32(4)
	want := t.want()
	top := min(want, size.Height-t.minBottom()-pad)
	top = max(top, 0)
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width, top))
	objs[1].Move(fyne.NewPos(0, top+pad))
	objs[1].Resize(fyne.NewSize(size.Width, max(size.Height-top-pad, 0)))
}

// MinSize is as wide as the wider object and tall enough for the log.
func (t topFirst) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	return fyne.NewSize(w, t.minBottom())
}
