package rigpick

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rig"
)

// Cluster picks the rigs one server runs over (a vLLM cluster over Ray):
// a box per rig the picker offers, and which of the ticked is the head.
// It reads nothing itself: Rigs is the text engine/cluster's ParseRigs
// reads, as the CLI's --rigs.
type Cluster struct {
	rigs *widget.CheckGroup
	head *widget.Select
	box  *fyne.Container
	// OnChanged is called after every change of the rigs or the head.
	OnChanged func()
}

// NewCluster lists rigs (names as rig.Parse reads them; rig.LocalName is
// shown as LocalLabel), none ticked.
func NewCluster(rigs []string) *Cluster {
	c := &Cluster{}
	c.rigs = widget.NewCheckGroup(nil, func([]string) { c.changed() })
	// One rig a line: a row of several SSH addresses would widen the
	// Launch form's column past half a small window.
	c.head = widget.NewSelect(nil, func(string) { c.changed() })
	c.head.PlaceHolder = "tick two rigs or more"
	c.box = container.NewVBox(c.rigs, container.NewBorder(nil, nil, widget.NewLabel("Head (runs vllm serve)"), nil, c.head))
	c.SetRigs(rigs)
	return c
}

// Content is the widget's root.
func (c *Cluster) Content() fyne.CanvasObject { return c.box }

// SetRigs replaces the rigs listed, keeping the ticks of those still
// listed.
func (c *Cluster) SetRigs(rigs []string) {
	labels := make([]string, len(rigs))
	for i, r := range rigs {
		labels[i] = label(r)
	}
	c.rigs.Options = labels
	c.rigs.Selected = slices.DeleteFunc(slices.Clone(c.rigs.Selected), func(s string) bool { return !slices.Contains(labels, s) })
	c.rigs.Refresh()
	c.changed()
}

// Tick ticks a rig by name as the user does (tests, the tour); the first
// rig ticked is the head until another is chosen.
func (c *Cluster) Tick(names ...string) {
	sel := slices.Clone(c.rigs.Selected)
	for _, n := range names {
		if l := label(n); !slices.Contains(sel, l) {
			sel = append(sel, l)
		}
	}
	c.rigs.SetSelected(sel)
}

// SetHead makes a ticked rig the head (tests, the tour).
func (c *Cluster) SetHead(name string) { c.head.SetSelected(label(name)) }

// Rigs is the cluster as --rigs writes it, the head marked: "" until two
// rigs are ticked.
func (c *Cluster) Rigs() string {
	if len(c.rigs.Selected) < 2 {
		return ""
	}
	parts := []string{"head=" + name(c.head.Selected)}
	for _, l := range c.rigs.Selected {
		if l != c.head.Selected {
			parts = append(parts, name(l))
		}
	}
	return strings.Join(parts, ",")
}

// changed keeps the head among the ticked rigs (the first ticked by
// default) and tells OnChanged.
func (c *Cluster) changed() {
	if c.head == nil {
		return
	}
	c.head.Options = slices.Clone(c.rigs.Selected)
	if !slices.Contains(c.rigs.Selected, c.head.Selected) {
		if len(c.rigs.Selected) > 0 {
			c.head.Selected = c.rigs.Selected[0]
		} else {
			c.head.Selected = ""
		}
	}
	c.head.Refresh()
	if c.OnChanged != nil {
		c.OnChanged()
	}
}

// label is a rig's name as the pickers show it; name reads it back.
func label(n string) string {
	if n == rig.LocalName {
		return LocalLabel
	}
	return n
}

func name(l string) string {
	if l == LocalLabel {
		return rig.LocalName
	}
	return l
}

// Names are the rigs a picker lists (its options less Add rig), as
// rig.Parse reads them: the Cluster's choices.
func (p *Picker) Names() []string {
	var out []string
	for _, o := range p.sel.Options {
		if o != AddLabel {
			out = append(out, name(o))
		}
	}
	return out
}
