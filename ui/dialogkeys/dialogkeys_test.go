package dialogkeys_test

import (
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/ui/dialogkeys"
)

func press(w fyne.Window, k fyne.KeyName) { w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: k}) }

// While a dialog shows, Escape and Enter answer it; once it closes they do
// what they did before (the app's Escape cancels a run), and other keys
// reach that handler meanwhile.
func TestKeysAnswerTheDialogThenGoBack(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewWindow(widget.NewLabel("app"))
	t.Cleanup(w.Close)
	var before []fyne.KeyName
	w.Canvas().SetOnTypedKey(func(e *fyne.KeyEvent) { before = append(before, e.Name) })

	var answers []bool
	dialogkeys.ShowConfirm("Sure?", "Go on?", func(ok bool) { answers = append(answers, ok) }, w)
	press(w, fyne.KeyF1)
	press(w, fyne.KeyReturn)
	dialogkeys.ShowConfirm("Sure?", "Go on?", func(ok bool) { answers = append(answers, ok) }, w)
	press(w, fyne.KeyEscape)
	if len(answers) != 2 || !answers[0] || answers[1] {
		t.Errorf("Enter then Escape answered %v, want [true false]", answers)
	}
	dialogkeys.ShowError(errors.New("no"), w)
	press(w, fyne.KeyEscape)
	if w.Canvas().Overlays().Top() != nil {
		t.Error("Escape left the error open")
	}
	press(w, fyne.KeyEscape)
	if len(before) != 2 || before[0] != fyne.KeyF1 || before[1] != fyne.KeyEscape {
		t.Errorf("the app's own handler got %v, want F1 (passed on) and the Escape after the dialogs closed", before)
	}
}

// Destructive: Enter and Escape answer no; only its button says yes.
func TestDestructiveDefaultsToNo(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewWindow(widget.NewLabel("app"))
	t.Cleanup(w.Close)
	var answers []bool
	answer := func(ok bool) { answers = append(answers, ok) }
	dialogkeys.Destructive("Delete?", "Gone for good.", "Delete", answer, w)
	press(w, fyne.KeyReturn)
	dialogkeys.Destructive("Delete?", "Gone for good.", "Delete", answer, w)
	press(w, fyne.KeyEscape)
	_, del := dialogkeys.Destructive("Delete?", "Gone for good.", "Delete", answer, w)
	test.Tap(del)
	if len(answers) != 3 || answers[0] || answers[1] || !answers[2] {
		t.Errorf("Enter, Escape, the button answered %v, want [false false true]", answers)
	}
}
