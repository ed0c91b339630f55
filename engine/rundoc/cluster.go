package rundoc

import (
	"fmt"
	"strconv"
	"strings"
)

// Cluster is the Ray cluster a launch spanned (issue 40): one vLLM server
// over several rigs, measured as one server. It rides in Launch, so the
// history keeps it with the launch it describes.
type Cluster struct {
	// Rigs are the rigs' public names (Rig.Name's form), the head first.
	Rigs []string `json:"rigs"`
	// TP and PP are the tensor- and pipeline-parallel sizes: TP GPUs in
	// each rig, PP rigs.
	TP int `json:"tp"`
	PP int `json:"pp"`
	// Interface is the link's network interface (NCCL_SOCKET_IFNAME), ""
	// when NCCL chose.
	Interface string `json:"interface,omitempty"`
	// Link is the link between the head and its slowest worker as
	// measured before vLLM started (nil: not measured).
	Link *ClusterLink `json:"link,omitempty"`
	// GPUs is how many GPUs each rig gave, in the order of Rigs (nil in
	// a run recorded before RigBench read every rig's). The run's hardware
	// and its cells' per-GPU telemetry number the cluster's GPUs rig after
	// rig: rig i's GPU j is index GPUs[0] + … + GPUs[i-1] + j (RigOfGPU).
	GPUs []int `json:"gpus,omitempty"`
	// HiddenSize is the model's hidden size as RigBench knew it at the
	// launch (its config.json; 0: not known): each token's activations a
	// pipeline hand-off sends are this many 16-bit values, which the
	// network-bound diagnosis sizes the per-step transfer with.
	HiddenSize int `json:"hidden_size,omitempty"`
}

// ClusterLink is one measurement of the link between the head and a
// worker, with the image's own tools (engine/cluster's link test).
type ClusterLink struct {
	// Gbps is the rate in gigabits per second; RTTUS the median round
	// trip of a one-byte message in microseconds.
	Gbps  float64 `json:"gbps"`
	RTTUS float64 `json:"rtt_us"`
	// Rig is the worker's rig; Tool what measured it.
	Rig  string `json:"rig,omitempty"`
	Tool string `json:"tool,omitempty"`
}

// Text is the link as a cluster's name says it: "9.4 Gb/s, 120 µs".
func (l *ClusterLink) Text() string {
	return fmt.Sprintf("%s Gb/s, %s µs", strconv.FormatFloat(l.Gbps, 'g', 2, 64), strconv.FormatFloat(l.RTTUS, 'f', 0, 64))
}

// Text names the cluster as History and Compare show it: "2 rigs, TP 1 ×
// PP 2 over enp1s0 at 9.4 Gb/s, 120 µs" (the interface and the measured
// link where known).
func (c *Cluster) Text() string {
	s := fmt.Sprintf("%d rigs, TP %d × PP %d", len(c.Rigs), c.TP, c.PP)
	switch {
	case c.Interface != "" && c.Link != nil:
		s += " over " + c.Interface + " at " + c.Link.Text()
	case c.Interface != "":
		s += " over " + c.Interface
	case c.Link != nil:
		s += " over " + c.Link.Text()
	}
	return s
}

// RigOfGPU is the rig that GPU index i of the run belongs to ("" when the
// cluster's GPUs were not recorded, or i is none of them; c may be nil: a
// run on one machine).
func (c *Cluster) RigOfGPU(i int) string {
	if c == nil || len(c.GPUs) != len(c.Rigs) {
		return ""
	}
	for r, n := range c.GPUs {
		if i >= 0 && i < n {
			return c.Rigs[r]
		}
		i -= n
	}
	return ""
}

// RigName is how a cluster run names its rig (Run.Rig's Name), so the
// history's RIG column, its rig filter and Compare name every rig of it:
// "ssh://a + ssh://b (2 rigs, TP 1 × PP 2 over enp1s0)".
func (c *Cluster) RigName() string {
	name := strings.Join(c.Rigs, " + ") + " (" + c.Text() + ")"
	if len(name) > MaxNameLen && len(c.Rigs) > 0 {
		name = fmt.Sprintf("%s + %d more (%s)", c.Rigs[0], len(c.Rigs)-1, c.Text())
	}
	return name
}

// cluster checks a recorded cluster.
func (v *validator) cluster(c *Cluster) {
	if len(c.Rigs) < 2 || len(c.Rigs) > 64 {
		v.fail("launch.cluster.rigs has %d rigs; a cluster has 2 to 64", len(c.Rigs))
	}
	for _, r := range c.Rigs {
		v.text("launch.cluster.rigs", r, MaxNameLen)
	}
	if c.TP < 1 || c.PP < 1 || c.TP > 1<<20 || c.PP > 1<<20 {
		v.fail("launch.cluster tp %d × pp %d is not a split (each a whole number of 1 or more)", c.TP, c.PP)
	}
	v.text("launch.cluster.interface", c.Interface, MaxNameLen)
	if len(c.GPUs) != 0 && len(c.GPUs) != len(c.Rigs) {
		v.fail("launch.cluster.gpus has %d counts for %d rigs", len(c.GPUs), len(c.Rigs))
	}
	for _, n := range c.GPUs {
		if n < 0 || n > 1024 {
			v.fail("launch.cluster.gpus %d is not a rig's GPU count", n)
		}
	}
	if c.HiddenSize < 0 || c.HiddenSize > 1<<20 {
		v.fail("launch.cluster.hidden_size %d is not a model's hidden size", c.HiddenSize)
	}
	if l := c.Link; l != nil {
		if !(l.Gbps > 0 && l.Gbps < 1e6) || !(l.RTTUS > 0 && l.RTTUS < 1e9) {
			v.fail("launch.cluster.link %g Gb/s, %g µs is not a measured link", l.Gbps, l.RTTUS)
		}
		v.text("launch.cluster.link.rig", l.Rig, MaxNameLen)
		v.text("launch.cluster.link.tool", l.Tool, MaxNameLen)
	}
	if strings.ContainsAny(c.Interface, " \t\n") {
		v.fail("launch.cluster.interface %q is not an interface name", c.Interface)
	}
}
