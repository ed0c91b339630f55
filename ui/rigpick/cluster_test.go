package rigpick_test

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/ui/rigpick"
)

// The cluster picker writes the ticked rigs as --rigs does, the head
// marked (the first ticked until another is chosen), Local as "local";
// nothing until two are ticked; a rig no longer listed drops out.
func TestClusterPickerWritesRigs(t *testing.T) {
	test.NewTempApp(t)
	p := rigpick.New([]string{"gpu-box"}, []string{"ssh://me@b"})
	if got, want := p.Names(), []string{"local", "gpu-box", "ssh://me@b"}; !slices.Equal(got, want) {
		t.Fatalf("Names = %q, want %q", got, want)
	}
	c := rigpick.NewCluster(p.Names())
	changes := 0
	c.OnChanged = func() { changes++ }
	c.Tick("ssh://me@b")
	if got := c.Rigs(); got != "" {
		t.Errorf("one rig ticked: %q, want none", got)
	}
	c.Tick("local")
	if got, want := c.Rigs(), "head=ssh://me@b,local"; got != want {
		t.Errorf("Rigs = %q, want %q", got, want)
	}
	c.SetHead("local")
	if got, want := c.Rigs(), "head=local,ssh://me@b"; got != want {
		t.Errorf("after choosing local as head: %q, want %q", got, want)
	}
	c.SetRigs([]string{"local", "gpu-box"})
	if got := c.Rigs(); got != "" {
		t.Errorf("after ssh://me@b left the list: %q, want none (one rig ticked)", got)
	}
	if changes == 0 {
		t.Error("OnChanged was never told")
	}
}
