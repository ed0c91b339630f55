// Package dialogkeys gives RigBench's dialogs the keys dialogs answer to
// elsewhere: Escape closes a dialog as its Cancel, No or Close button does,
// and Enter presses its default button. Fyne's dialogs ignore both. A
// destructive question (Delete) makes Cancel its default, so Enter never
// deletes.
package dialogkeys

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Bind answers Escape with d.Dismiss and Enter with enter (nothing when
// enter is nil) while d shows on win, then gives the keys back to what
// they did before (the app's Escape cancels a run). Call it once d shows.
// Keys typed into a focused field go to the field (see Field).
func Bind(win fyne.Window, d dialog.Dialog, enter func()) {
	c := win.Canvas()
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(e *fyne.KeyEvent) {
		switch e.Name {
		case fyne.KeyEscape:
			d.Dismiss()
		case fyne.KeyReturn, fyne.KeyEnter:
			if enter != nil {
				enter()
			}
		default:
			if prev != nil {
				prev(e)
			}
		}
	})
	d.SetOnClosed(func() { c.SetOnTypedKey(prev) })
}

// ShowInformation is dialog.ShowInformation that Enter and Escape close.
func ShowInformation(title, message string, win fyne.Window) {
	d := dialog.NewInformation(title, message, win)
	d.Show()
	Bind(win, d, d.Hide)
}

// ShowError is dialog.ShowError that Enter and Escape close.
func ShowError(err error, win fyne.Window) {
	d := dialog.NewError(err, win)
	d.Show()
	Bind(win, d, d.Hide)
}

// ShowConfirm is dialog.ShowConfirm that Enter answers yes and Escape no.
func ShowConfirm(title, message string, answer func(bool), win fyne.Window) *dialog.ConfirmDialog {
	d := dialog.NewConfirm(title, message, answer, win)
	d.Show()
	Bind(win, d, d.Confirm)
	return d
}

// Destructive asks before something that cannot be undone. Its buttons are
// Cancel, the default (highlighted; Enter and Escape press it), and
// action, in the danger colour, which only a click presses: a Yes that
// Enter pressed deleted runs by accident. The message wraps. It returns
// the dialog and its action button (tests press it).
func Destructive(title, message, action string, answer func(bool), win fyne.Window) (dialog.Dialog, *widget.Button) {
	msg := widget.NewLabel(message)
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons(title, msg, win)
	answered := false
	reply := func(ok bool) {
		if answered {
			return
		}
		answered = true
		d.Hide()
		answer(ok)
	}
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { reply(false) })
	cancel.Importance = widget.HighImportance
	act := widget.NewButtonWithIcon(action, theme.DeleteIcon(), func() { reply(true) })
	act.Importance = widget.DangerImportance
	d.SetButtons([]fyne.CanvasObject{cancel, act})
	// Wide enough that a long question wraps to a few lines, not a column.
	d.Resize(fyne.NewSize(min(560, win.Canvas().Size().Width-40), 0))
	d.Show()
	Bind(win, d, func() { reply(false) })
	d.SetOnClosed(func() { reply(false) })
	return d, act
}

// Form is a form dialog that Enter submits (from the form, or from a Field
// in it) and Escape cancels. Pass its Fields so that keys typed into them
// answer too.
func Form(title, confirm, dismiss string, items []*widget.FormItem, answer func(bool), win fyne.Window, fields ...*Field) *dialog.FormDialog {
	d := dialog.NewForm(title, confirm, dismiss, items, answer, win)
	for _, f := range fields {
		f.OnSubmitted = func(string) { d.Submit() }
		f.escape = d.Dismiss
	}
	return d
}

// ShowForm shows Form's dialog, its keys bound.
func ShowForm(title, confirm, dismiss string, items []*widget.FormItem, answer func(bool), win fyne.Window, fields ...*Field) *dialog.FormDialog {
	d := Form(title, confirm, dismiss, items, answer, win, fields...)
	d.Show()
	Bind(win, d, d.Submit)
	return d
}

// Field is a one-line text field for a dialog: Escape typed into it closes
// the dialog (Fyne hands a focused field every key, so the dialog never
// sees it), Enter submits it (Form).
type Field struct {
	widget.Entry
	escape func()
}

// NewField returns an empty Field.
func NewField() *Field {
	f := &Field{}
	f.ExtendBaseWidget(f)
	return f
}

// TypedKey closes the dialog on Escape, and is the entry's otherwise.
func (f *Field) TypedKey(e *fyne.KeyEvent) {
	if e.Name == fyne.KeyEscape && f.escape != nil {
		f.escape()
		return
	}
	f.Entry.TypedKey(e)
}

var _ fyne.Focusable = (*Field)(nil)

// ShowFileOpen asks for a file to read, listing only exts (".json"; none:
// every file), and calls open with its path once one is picked; Escape
// cancels, and Enter opens only a file picked. Every file the app reads
// (History's import, Tune's sweep, the Quality check's baseline) is asked
// for here.
func ShowFileOpen(win fyne.Window, exts []string, open func(path string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		open(path)
	}, win)
	if len(exts) > 0 {
		d.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	d.Show()
	Bind(win, d, nil)
}
