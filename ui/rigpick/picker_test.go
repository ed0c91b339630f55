package rigpick_test

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/ui/rigpick"
)

// The picker lists Local, the contexts (not "default", which is Local
// again), the rigs added before and Add rig, and tells the app the name
// rig.Parse takes.
func TestPickerListsAndPicks(t *testing.T) {
	test.NewTempApp(t)
	p := rigpick.New([]string{"default", "gpu-box"}, []string{"ssh://me@basement"})
	want := []string{rigpick.LocalLabel, "gpu-box", "ssh://me@basement", rigpick.AddLabel}
	if got := p.Options(); !slices.Equal(got, want) {
		t.Errorf("options %q, want %q", got, want)
	}
	var picked []string
	p.OnChanged = func(name string) { picked = append(picked, name) }
	p.Pick("gpu-box")
	p.Pick(rigpick.LocalLabel)
	if !slices.Equal(picked, []string{"gpu-box", "local"}) || p.Rig() != "local" {
		t.Errorf("picked %q (rig %q), want gpu-box then local", picked, p.Rig())
	}
	p.SetRig("ssh://me@basement")
	if len(picked) != 2 || p.Rig() != "ssh://me@basement" {
		t.Errorf("SetRig told OnChanged (%q) or did not pick (rig %q)", picked, p.Rig())
	}
}

// Add rig: a mistyped address is refused in one sentence naming the part
// and nothing changes; a good one is listed, remembered and picked.
func TestPickerAddsAnSSHRig(t *testing.T) {
	test.NewTempApp(t)
	p := rigpick.New(nil, nil)
	var picked string
	var remembered []string
	p.OnChanged = func(name string) { picked = name }
	p.OnAdded = func(a []string) { remembered = a }
	p.Pick(rigpick.AddLabel)
	if !p.Adding() || p.Rig() != "local" {
		t.Fatalf("Add rig: entry shown %v, rig %q; want the entry and the rig unchanged", p.Adding(), p.Rig())
	}
	for in, want := range map[string]string{
		"ssh://me@box:0":      `The rig address "ssh://me@box:0": its port must be a number from 1 to 65535.`,
		"tcp://box:2375":      `its scheme "tcp" is not supported`,
		"ssh://me:secret@box": "never a password",
		"box":                 `"box" is not an SSH address`,
		"":                    "Write the rig's address",
	} {
		p.SetEntry(in)
		p.Add()
		if got := p.Problem(); !strings.Contains(got, want) || strings.Count(got, ". ") > 1 {
			t.Errorf("Add %q said %q, want one sentence with %q", in, got, want)
		}
		if picked != "" || remembered != nil {
			t.Errorf("Add %q changed the rig to %q (remembered %q)", in, picked, remembered)
		}
	}
	p.SetEntry("ssh://me@basement:2222")
	p.Add()
	if picked != "ssh://me@basement:2222" || !slices.Equal(remembered, []string{"ssh://me@basement:2222"}) || p.Problem() != "" || p.Adding() {
		t.Errorf("after a good address: picked %q, remembered %q, problem %q, entry shown %v", picked, remembered, p.Problem(), p.Adding())
	}
	if got := p.Options(); !slices.Contains(got, "ssh://me@basement:2222") {
		t.Errorf("options %q do not list the added rig", got)
	}
}

// Issue 41: Remove shows only on an SSH rig the user added; it forgets it
// (OnAdded is told the rest, to remember), and picks Local.
func TestPickerRemovesAnAddedRig(t *testing.T) {
	test.NewTempApp(t)
	p := rigpick.New([]string{"gpu-box"}, []string{"ssh://me@basement", "ssh://me@attic"})
	var remembered []string
	var picked []string
	p.OnAdded = func(a []string) { remembered = a }
	p.OnChanged = func(name string) { picked = append(picked, name) }
	if p.CanRemove() {
		t.Error("Remove offered on Local")
	}
	p.Pick("gpu-box")
	if p.CanRemove() {
		t.Error("Remove offered on a Docker context")
	}
	p.Pick("ssh://me@basement")
	if !p.CanRemove() {
		t.Fatal("Remove not offered on an added SSH rig")
	}
	p.Remove()
	want := []string{rigpick.LocalLabel, "gpu-box", "ssh://me@attic", rigpick.AddLabel}
	if got := p.Options(); !slices.Equal(got, want) {
		t.Errorf("options after Remove %q, want %q", got, want)
	}
	if !slices.Equal(remembered, []string{"ssh://me@attic"}) {
		t.Errorf("remembered %q, want the rig left", remembered)
	}
	if p.Rig() != "local" || picked[len(picked)-1] != "local" || p.CanRemove() {
		t.Errorf("after Remove the rig is %q (told %q), Remove shown %v; want Local", p.Rig(), picked, p.CanRemove())
	}
}
