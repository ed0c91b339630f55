package launchview

// One model over several rigs: the cluster's rigs, head and link, the
// plan engine/cluster proposes for them (the split and why the others are
// not, every `docker run` and the `vllm serve` line) in the previews'
// place, and Start through the one cluster launcher the CLI uses.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/rigpick"
	"github.com/rigbench/rigbench/ui/target"
)

// ClusterLaunchFunc starts one server over several rigs for cfg as in
// reads them (session.TargetInput.Cluster, the CLI's --rigs, --interface
// and --node-ips) and returns when it is ready or has failed. Its
// server's Stop stops every rig's node.
type ClusterLaunchFunc func(ctx context.Context, cfg vllm.LaunchConfig, in session.ClusterInput, p Progress) (*session.Server, error)

// ClusterToggle is the label of the box that turns a launch into a
// cluster launch.
const ClusterToggle = "Serve one model over several rigs (vLLM over Ray)"

// clusterPanel is the cluster's inputs (in the top bar, under the rig
// picker) and its plan (in the previews' place).
type clusterPanel struct {
	on      *widget.Check
	rigs    *rigpick.Cluster
	iface   *widget.Entry
	nodeIPs *widget.Entry
	inputs  *fyne.Container
	box     *fyne.Container

	split, others, problem *widget.Label
	lines                  *fyne.Container
	plan                   *fyne.Container
	text                   string // every line of the plan, for Copy
	launch                 ClusterLaunchFunc
	// gpus is each rig's GPU count as the app last read it (rig picker
	// names; SetRigGPUs), which the plan takes as Start will.
	gpus map[string]int
	// proposed is the split of the plan shown, zero while none is.
	proposed cluster.Split
}

func newClusterPanel(onChange func()) *clusterPanel {
	c := &clusterPanel{rigs: rigpick.NewCluster(nil), iface: widget.NewEntry(), nodeIPs: widget.NewEntry(), gpus: map[string]int{}}
	c.on = widget.NewCheck(ClusterToggle, func(bool) { onChange() })
	c.rigs.OnChanged = onChange
	c.iface.SetPlaceHolder("the link's interface, such as enp1s0 (empty: NCCL chooses)")
	c.nodeIPs.SetPlaceHolder("head first, such as 10.0.0.1,10.0.0.2 (empty: the hosts)")
	c.iface.OnChanged = func(string) { onChange() }
	c.nodeIPs.OnChanged = func(string) { onChange() }
	c.inputs = container.NewVBox(c.rigs.Content(), widget.NewForm(
		widget.NewFormItem("Interface", c.iface), widget.NewFormItem("Node addresses", c.nodeIPs)))
	c.inputs.Hide()
	c.box = container.NewVBox(c.on, c.inputs)
	c.split = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.split.Wrapping = fyne.TextWrapWord
	c.others = widget.NewLabel("")
	c.others.Wrapping = fyne.TextWrapWord
	c.problem = widget.NewLabel("")
	c.problem.Importance = widget.WarningImportance
	c.problem.Wrapping = fyne.TextWrapWord
	c.lines = container.NewVBox()
	c.plan = container.NewVBox(c.problem, c.split, c.others, c.lines)
	c.plan.Hide()
	return c
}

// Input is the cluster as the user set it.
func (c *clusterPanel) Input() session.ClusterInput {
	return session.ClusterInput{Rigs: c.rigs.Rigs(), Interface: c.iface.Text, NodeIPs: c.nodeIPs.Text}
}

// refresh shows the inputs and the plan while the box is ticked, the
// single launch's previews otherwise. The plan takes each rig's GPUs as
// the app last read them (SetRigGPUs), so its T × P is Start's; a rig not
// read yet is taken to have one, which the split's sentence says.
func (c *clusterPanel) refresh(cfg vllm.LaunchConfig, single fyne.CanvasObject) {
	if !c.on.Checked {
		c.inputs.Hide()
		c.plan.Hide()
		single.Show()
		return
	}
	c.inputs.Show()
	single.Hide()
	c.plan.Show()
	c.lines.Objects = nil
	c.split.SetText("")
	c.proposed = cluster.Split{}
	c.others.SetText("")
	c.text = ""
	in := c.Input()
	if in.Rigs == "" {
		c.problem.SetText("Tick two rigs or more above (add SSH rigs with the rig picker); the first ticked is the head unless you choose another.")
		c.problem.Show()
		c.lines.Refresh()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	plan, assumed, err := in.Preview(ctx, cfg, c.gpus)
	if err != nil {
		c.problem.SetText(target.Text(err))
		c.problem.Show()
		c.lines.Refresh()
		return
	}
	c.problem.Hide()
	c.proposed = plan.Split
	text := fmt.Sprintf("%s over %d rigs: %s (T is each rig's GPU count as RigBench last read it; Start reads it again on every rig and plans with it).",
		plan.Split.Text(), plan.Split.PP, plan.Split.Why)
	if len(assumed) > 0 {
		text += fmt.Sprintf(" GPUs not read yet on %s: assumed 1 (pick it in the Hardware tab's Rig picker to read them; a rig without the launch image is read at Start).", strings.Join(assumed, ", "))
	}
	c.split.SetText(text)
	var others []string
	for _, o := range plan.Others {
		others = append(others, fmt.Sprintf("%s: %s.", o.Text(), o.Why))
	}
	c.others.SetText(strings.Join(others, "\n"))
	c.others.Hidden = len(others) == 0
	var all []string
	for i, line := range plan.DockerCommands() {
		c.lines.Add(heading(fmt.Sprintf("docker run on %s%s", plan.Nodes[i].Rig, map[bool]string{true: " (head)"}[plan.Nodes[i].Head])))
		c.lines.Add(monoText(line))
		all = append(all, line)
	}
	c.lines.Add(heading("vllm serve, in the head's container"))
	c.lines.Add(monoText(plan.ServeLine()))
	c.lines.Add(widget.NewLabel(fmt.Sprintf("Containers are named with a new id at each Start (%s here).", session.PreviewID)))
	c.text = strings.Join(append(all, plan.ServeLine()), "\n")
	c.lines.Refresh()
}

func heading(s string) fyne.CanvasObject {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

func monoText(s string) fyne.CanvasObject {
	l := mono()
	l.SetText(s)
	return l
}

// copyButton copies the plan's lines.
func (c *clusterPanel) copyButton(copyText func(string)) *widget.Button {
	return widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { copyText(c.text) })
}

// SetClusterLaunch gives the view the cluster launcher Start uses while
// the cluster box is ticked (nil: refused with a sentence).
func (v *View) SetClusterLaunch(f ClusterLaunchFunc) { v.cluster.launch = f }

// SetRigGPUs notes how many GPUs the app read on the rig named name (as
// the rig picker names it), for the cluster's plan; 0 (none read) makes
// the plan take one for it again.
func (v *View) SetRigGPUs(name string, n int) {
	if n > 0 {
		v.cluster.gpus[name] = n
	} else {
		delete(v.cluster.gpus, name)
	}
	if v.cluster.on.Checked {
		v.refreshCluster()
	}
}

// SetClusterRigs lists the rigs the cluster may span (the rig picker's).
func (v *View) SetClusterRigs(names []string) { v.cluster.rigs.SetRigs(names) }

// Cluster is the cluster's picker, for tests and the tour to tick rigs.
func (v *View) Cluster() *rigpick.Cluster { return v.cluster.rigs }

// SetClusterMode ticks or unticks the cluster box as the user does.
func (v *View) SetClusterMode(on bool) { v.cluster.on.SetChecked(on) }

// SetClusterLink types the interface and the nodes' addresses.
func (v *View) SetClusterLink(iface, nodeIPs string) {
	v.cluster.iface.SetText(iface)
	v.cluster.nodeIPs.SetText(nodeIPs)
}

// ClusterPlan is the plan as shown: the split's sentence, the others',
// the problem ("" when none) and every command line.
func (v *View) ClusterPlan() (split, others, problem, lines string) {
	if v.cluster.problem.Visible() {
		problem = v.cluster.problem.Text
	}
	if v.cluster.others.Visible() {
		others = v.cluster.others.Text
	}
	return v.cluster.split.Text, others, problem, v.cluster.text
}

// refreshCluster redraws the cluster's part after an edit.
func (v *View) refreshCluster() {
	v.cluster.refresh(v.Form.Config(), v.single)
	if v.Target.Choice().Kind == target.Launch {
		v.targetChanged(v.Target.Choice()) // the rig picker shows for one rig only
	}
	v.relayout()
}

// NoClusterRigs refuses a launch (and a sweep) over the cluster while
// fewer than two rigs are ticked.
const NoClusterRigs = "Tick two rigs or more for the cluster on the Launch page, or untick “" + ClusterToggle + "” to launch on the picked rig."

// ClusterInput is the cluster Start launches over (the CLI's --rigs,
// --interface, --node-ips and --serve-port as session.ClusterInput takes
// them), with the server on cfg's port of the head rig; the Tune view's
// launch sweep has each variant launched over the same. on is false while
// the cluster box is unticked (one rig); Rigs is "" until two rigs are
// ticked.
func (v *View) ClusterInput(cfg vllm.LaunchConfig) (in session.ClusterInput, on bool) {
	if !v.cluster.on.Checked {
		return session.ClusterInput{}, false
	}
	return served(v.cluster.Input(), cfg), true
}

// ClusterSplit is the split the cluster's plan proposes (T the GPUs each
// rig gives as last read, P the rigs); ok is false while no plan shows
// (the box unticked, fewer than two rigs, a plan that cannot be made).
func (v *View) ClusterSplit() (split cluster.Split, ok bool) {
	p := v.cluster.proposed
	return p, v.cluster.on.Checked && p.PP > 0
}

// served is in with the server on cfg's port of the head rig.
func served(in session.ClusterInput, cfg vllm.LaunchConfig) session.ClusterInput {
	in.ServePort = cfg.Port
	return in
}

// clusterLaunch is Start's launcher while the box is ticked: the cluster
// launcher with the plan's inputs, the server on the form's port of the
// head rig; nil and the refusal's sentence when it cannot start.
func (v *View) clusterLaunch() (LaunchFunc, string) {
	in := v.cluster.Input()
	if in.Rigs == "" {
		return nil, NoClusterRigs
	}
	if v.cluster.launch == nil {
		return nil, "RigBench cannot start a cluster here: launch on one rig, or use an existing endpoint or the demo instead."
	}
	if _, _, problem, _ := v.ClusterPlan(); problem != "" {
		return nil, problem
	}
	launch := v.cluster.launch
	return func(ctx context.Context, cfg vllm.LaunchConfig, p Progress) (*session.Server, error) {
		return launch(ctx, cfg, served(in, cfg), p)
	}, ""
}
