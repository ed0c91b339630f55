// Package rigpick is the rig picker of the Hardware and Launch views: where
// RigBench detects and launches. It lists this computer's Docker (Local),
// each Docker context the user has, the SSH rigs added before, and "Add rig:
// ssh://…", whose address is read by engine/rig's Parse and its mistakes
// worded in the app's terms. It connects to nothing itself: the app is told
// the rig's name (what rig.Parse takes) and shows what reaching it gave with
// SetProblem.
package rigpick

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/ui/wording"
)

// Labels of the picker's fixed choices.
const (
	// LocalLabel stands for rig.LocalName, this computer's Docker daemon.
	LocalLabel = "Local (this computer)"
	// AddLabel opens the entry for a new SSH rig.
	AddLabel = "Add rig: ssh://…"
)

// Picker is one rig picker. The app makes one per view (a widget lives in
// one place) and keeps them on the same rig with SetRig.
type Picker struct {
	sel     *widget.Select
	entry   *widget.Entry
	add     *widget.Button
	remove  *widget.Button
	adding  *fyne.Container
	problem *widget.Label
	// trust, under the problem, trusts an unknown host key (SetTrust).
	trust *widget.Button
	box   *fyne.Container

	contexts, added []string
	rig             string // the rig picked, as rig.Parse reads it
	quiet           bool   // SetRig: no OnChanged

	// OnChanged is told the name of the rig the user picked ("local",
	// ssh://user@host[:port], or a Docker context's name).
	OnChanged func(name string)
	// OnAdded is told every SSH rig added so far, the new one first, to
	// remember them; also after one is removed (Remove).
	OnAdded func(added []string)
}

// New returns a picker on the local daemon offering contexts (Docker
// context names; "default", the local daemon again, is left out) and the
// SSH rigs added before.
func New(contexts, added []string) *Picker {
	p := &Picker{rig: rig.LocalName}
	p.sel = widget.NewSelect(nil, p.picked)
	p.entry = widget.NewEntry()
	p.entry.SetPlaceHolder("ssh://user@host[:port]")
	p.entry.OnSubmitted = func(string) { p.Add() }
	p.add = widget.NewButton("Add", p.Add)
	p.adding = container.NewBorder(nil, nil, nil, p.add, p.entry)
	p.adding.Hide()
	p.problem = widget.NewLabel("")
	p.problem.Wrapping = fyne.TextWrapWord
	p.problem.Importance = widget.WarningImportance
	p.problem.Hide()
	p.remove = widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), p.Remove)
	p.trust = widget.NewButtonWithIcon(TrustLabel, theme.ConfirmIcon(), nil)
	p.trust.Hide()
	p.box = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Rig"), p.remove, p.sel),
		p.adding, p.problem, container.NewHBox(p.trust))
	p.SetChoices(contexts, added)
	return p
}

// Content is the picker's root object.
func (p *Picker) Content() fyne.CanvasObject { return p.box }

// SetChoices replaces the listed contexts and added rigs.
func (p *Picker) SetChoices(contexts, added []string) {
	p.contexts = slices.DeleteFunc(slices.Clone(contexts), func(c string) bool { return c == "default" || c == rig.LocalName })
	p.added = slices.Clone(added)
	opts := []string{LocalLabel}
	opts = append(opts, p.contexts...)
	for _, a := range p.added {
		if !slices.Contains(opts, a) {
			opts = append(opts, a)
		}
	}
	p.sel.Options = append(opts, AddLabel)
	p.show(p.rig)
}

// Options are the choices as listed.
func (p *Picker) Options() []string { return p.sel.Options }

// Rig is the name of the rig picked ("local" for this computer).
func (p *Picker) Rig() string { return p.rig }

// SetRig shows name as picked without telling OnChanged (the other view's
// picker changed, or the remembered rig at start-up). A name not listed is
// listed first.
func (p *Picker) SetRig(name string) {
	if name == "" {
		name = rig.LocalName
	}
	if name != rig.LocalName && !slices.Contains(p.sel.Options, name) {
		p.sel.Options = slices.Insert(p.sel.Options, len(p.sel.Options)-1, name)
	}
	p.rig = name
	p.show(name)
}

// offerRemove shows Remove while name is an SSH rig the user added.
func (p *Picker) offerRemove(name string) {
	if slices.Contains(p.added, name) {
		p.remove.Show()
	} else {
		p.remove.Hide()
	}
}

// show selects name's label without the Select's callback acting.
func (p *Picker) show(name string) {
	p.offerRemove(name)
	label := name
	if name == rig.LocalName {
		label = LocalLabel
	}
	p.quiet = true
	p.sel.SetSelected(label)
	p.quiet = false
}

// Pick chooses a listed label as the user does (tests, the tour).
func (p *Picker) Pick(label string) { p.sel.SetSelected(label) }

func (p *Picker) picked(label string) {
	if p.quiet {
		return
	}
	if label == AddLabel {
		p.adding.Show()
		p.SetProblem("")
		p.show(p.rig) // the picked rig stays until one is added
		if c := fyne.CurrentApp().Driver().CanvasForObject(p.entry); c != nil {
			c.Focus(p.entry)
		}
		return
	}
	p.adding.Hide()
	name := label
	if label == LocalLabel {
		name = rig.LocalName
	}
	if name == p.rig {
		return
	}
	p.rig = name
	p.offerRemove(name)
	p.SetProblem("")
	if p.OnChanged != nil {
		p.OnChanged(name)
	}
}

// SetEntry types an address into the Add rig entry (tests, the tour).
func (p *Picker) SetEntry(s string) { p.adding.Show(); p.entry.SetText(s) }

// Adding reports whether the Add rig entry shows.
func (p *Picker) Adding() bool { return p.adding.Visible() }

// Add reads the entry's address: a mistake is said under the picker and
// nothing changes; a good one is listed, remembered and picked.
func (p *Picker) Add() {
	text := strings.TrimSpace(p.entry.Text)
	if text == "" {
		p.SetProblem("Write the rig's address, ssh://user@host[:port] (host may be an alias of your ~/.ssh/config).")
		return
	}
	s, err := rig.Parse(text)
	if err != nil {
		p.SetProblem(AddressProblem(err))
		return
	}
	if s.Kind != rig.SSH {
		p.SetProblem(fmt.Sprintf("%q is not an SSH address: write ssh://user@host[:port]; your Docker contexts are listed in the picker already.", text))
		return
	}
	p.entry.SetText("")
	p.adding.Hide()
	p.added = append([]string{s.Name}, slices.DeleteFunc(p.added, func(a string) bool { return a == s.Name })...)
	if p.OnAdded != nil {
		p.OnAdded(slices.Clone(p.added))
	}
	p.SetChoices(p.contexts, p.added)
	p.Pick(s.Name)
}

// CanRemove reports whether Remove shows: the rig picked is an SSH rig the
// user added (Local and Docker contexts are not the picker's to forget).
func (p *Picker) CanRemove() bool { return p.remove.Visible() }

// Remove forgets the SSH rig picked (the rig itself, its runs in History
// and its known_hosts entry are left alone) and picks Local: a rig
// mistyped or sold stayed in the list for good.
func (p *Picker) Remove() {
	name := p.rig
	if !slices.Contains(p.added, name) {
		return
	}
	p.added = slices.DeleteFunc(p.added, func(a string) bool { return a == name })
	if p.OnAdded != nil {
		p.OnAdded(slices.Clone(p.added))
	}
	p.SetChoices(p.contexts, p.added)
	p.Pick(LocalLabel)
}

// SetProblem shows one sentence under the picker (an address mistake, a
// rig that could not be reached); "" hides it, and the Trust button with
// it.
func (p *Picker) SetProblem(s string) {
	p.problem.SetText(s)
	if s == "" {
		p.problem.Hide()
		p.SetTrust(nil)
	} else {
		p.problem.Show()
	}
}

// TrustLabel is the button under an unknown host key's sentence.
const TrustLabel = "Trust this key…"

// SetTrust shows the Trust button under the problem, which calls trust
// (the app asks the user to compare the fingerprint first); nil hides it.
func (p *Picker) SetTrust(trust func()) {
	p.trust.OnTapped = trust
	if trust == nil {
		p.trust.Hide()
	} else {
		p.trust.Show()
	}
}

// CanTrust reports whether the Trust button shows; Trust presses it.
func (p *Picker) CanTrust() bool { return p.trust.Visible() }

// Trust presses the Trust button, as a user would (nothing when hidden).
func (p *Picker) Trust() {
	if p.trust.Visible() && p.trust.OnTapped != nil {
		p.trust.OnTapped()
	}
}

// Problem is the sentence under the picker, "" when none.
func (p *Picker) Problem() string {
	if !p.problem.Visible() {
		return ""
	}
	return p.problem.Text
}

// AddressProblem words rig.Parse's refusal in the app's terms: the part
// of the address that is wrong and why, as one sentence.
func AddressProblem(err error) string {
	var fe *rig.FieldError
	if errors.As(err, &fe) {
		return wording.Sentence(fmt.Sprintf("the rig address %q: its %s %s", fe.Value, fe.Field, fe.Reason))
	}
	return wording.Sentence(err.Error())
}
