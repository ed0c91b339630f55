package cluster

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Defaults of a cluster launch.
const (
	// DefaultRayPort is Ray's default head port (its GCS).
	DefaultRayPort = 6379
	// DefaultServePort is where `vllm serve` listens on the head rig's
	// loopback (vLLM's default port).
	DefaultServePort = vllm.ContainerPort
)

// Rig is one rig of the cluster as the plan needs it.
type Rig struct {
	// Name is the rig as the user named it (rig.Spec.Name), for messages.
	Name string
	// GPUs is how many GPUs the rig has (detected); 0 for none.
	GPUs int
	// Address is the node's IP address on the link between the rigs: its
	// VLLM_HOST_IP and, for the head, the address workers join.
	Address string
}

// Input is a cluster launch as the user set it: the rigs (the head first),
// the interface of the link, and the launch (image, model, flags, caches,
// token) every node runs.
type Input struct {
	Rigs []Rig
	// Interface is the network interface of the link between the rigs
	// (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME); "" leaves NCCL and Gloo to
	// choose, which on a rig with several interfaces may be the wrong one.
	Interface string
	// Launch is the launch every node runs: its image, its HF cache and
	// token on every node, its model and flags in the serve line.
	Launch vllm.LaunchConfig
	// RayPort is the head's Ray port (0: DefaultRayPort); ServePort the
	// server's port on the head's loopback (0: DefaultServePort).
	RayPort, ServePort int
	// ID names this cluster's containers (rigbench-ray-ID-…) and labels
	// them (LabelCluster), so every rig's share is found again.
	ID string
}

// Split is a tensor × pipeline parallel split and why it is (or is not)
// the one proposed.
type Split struct {
	TP, PP int
	Why    string
}

// Text is the split as people write it: "TP 2 × PP 2".
func (s Split) Text() string { return fmt.Sprintf("TP %d × PP %d", s.TP, s.PP) }

// Node is one rig's container of the cluster.
type Node struct {
	// Rig is the rig's name; Head is true for the first.
	Rig  string
	Head bool
	// Address is the node's VLLM_HOST_IP.
	Address string
	// Name is the container's name.
	Name string
	// GPUs is the container's --gpus request ("count=T").
	GPUs string
	// Env are the node's environment variables (no secret: the token is
	// added at start from the launch's token source).
	Env []string
	// Cmd is `ray start …`, the container's command (ray as entrypoint).
	Cmd []string
}

// Plan is a cluster launch ready to start: the split, every node's
// container and the serve line.
type Plan struct {
	// Split is the proposed T × P with the reason; Others are the splits
	// the rigs would allow and why each is not proposed.
	Split  Split
	Others []Split
	// Nodes are the rigs' containers, the head first.
	Nodes []Node
	// Serve is the launch `vllm serve` runs in the head's container: the
	// input's with the split and the Ray backend set.
	Serve vllm.LaunchConfig
	// HeadAddress is where workers join the head (address:port).
	HeadAddress string
	// Interface is the input's.
	Interface string
	// RayPort and ServePort are the ports in use.
	RayPort, ServePort int
	// Image is the image every node runs.
	Image string
	// ID is the input's, labelling every node.
	ID string
}

// ErrPlan marks an input no cluster can be planned from.
var ErrPlan = errors.New("no cluster can be planned")

// Propose plans the cluster: T = the GPUs of each node, P = the nodes;
// a launch whose flags ask for a split gets it where the rigs allow it,
// and a sentence saying why not where they do not (asked).
// vLLM's Ray executor wants the same GPUs on every node, so a rig with more
// GPUs than the others gives only as many; tensor parallelism stays inside
// each rig (its all-reduces, two a layer, need the fast in-box link) and
// pipeline parallelism crosses the rigs (one hand-off a step), as vLLM's
// docs advise.
func Propose(in Input) (Plan, error) {
	if len(in.Rigs) < 2 {
		return Plan{}, fmt.Errorf("%w: a cluster needs two rigs or more", ErrPlan)
	}
	t := 0
	addrs := map[string]string{}
	for i, r := range in.Rigs {
		if r.GPUs < 1 {
			return Plan{}, fmt.Errorf("%w: rig %s has no GPU; every node of a cluster needs one at least (check its NVIDIA driver and container toolkit, or leave it out)", ErrPlan, r.Name)
		}
		if i == 0 || r.GPUs < t {
			t = r.GPUs
		}
		if net.ParseIP(r.Address) == nil {
			return Plan{}, fmt.Errorf("%w: rig %s has no IP address on the link (%q): give the node's address", ErrPlan, r.Name, r.Address)
		}
		if other, dup := addrs[r.Address]; dup {
			return Plan{}, fmt.Errorf("%w: rigs %s and %s share the address %s, and vLLM tells nodes apart by VLLM_HOST_IP: give each its own address on the link", ErrPlan, other, r.Name, r.Address)
		}
		addrs[r.Address] = r.Name
	}
	p := len(in.Rigs)
	why := splitWhy(in.Rigs, t, p)
	if tp, _, err := asked(in.Launch, in.Rigs, t); err != nil {
		return Plan{}, err
	} else if tp > 0 && tp < t {
		t, why = tp, fmt.Sprintf("asked for by --tensor-parallel-size %d: each rig's node takes %d of its GPUs, and pipeline parallelism crosses the %d rigs", tp, tp, p)
	}
	rayPort, servePort := orDefault(in.RayPort, DefaultRayPort), orDefault(in.ServePort, DefaultServePort)
	plan := Plan{
		Split:       Split{TP: t, PP: p, Why: why},
		Others:      others(t, p),
		HeadAddress: net.JoinHostPort(in.Rigs[0].Address, strconv.Itoa(rayPort)),
		Interface:   in.Interface, RayPort: rayPort, ServePort: servePort,
		Image: in.Launch.ImageRef(), ID: in.ID,
	}
	for i, r := range in.Rigs {
		plan.Nodes = append(plan.Nodes, plan.node(i, r, t))
	}
	plan.Serve = serveConfig(in.Launch, t, p)
	return plan, nil
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// splitWhy is the sentence that goes with the proposed split.
func splitWhy(rigs []Rig, t, p int) string {
	why := fmt.Sprintf("tensor parallelism over the %d GPU(s) inside each rig, pipeline parallelism across the %d rigs: "+
		"only one hand-off a step crosses the network", t, p)
	var more []string
	for _, r := range rigs {
		if r.GPUs > t {
			more = append(more, fmt.Sprintf("%s has %d", r.Name, r.GPUs))
		}
	}
	if len(more) > 0 {
		why += fmt.Sprintf("; vLLM needs the same GPUs on every node, so each gives %d (%s)", t, strings.Join(more, ", "))
	}
	return why
}

// others are the other splits of T × P GPUs, each with why it is not
// proposed.
func others(t, p int) []Split {
	n := t * p
	var out []Split
	for tp := 1; tp <= n; tp++ {
		if n%tp != 0 || tp == t {
			continue
		}
		pp := n / tp
		s := Split{TP: tp, PP: pp}
		if tp > t {
			s.Why = "refused: its tensor-parallel groups span rigs, so two all-reduces a layer cross the network every step"
		} else {
			s.Why = "not proposed: it leaves each rig's in-box link unused and makes the pipeline deeper (more bubbles), for no gain in memory"
		}
		out = append(out, s)
	}
	return out
}

// node is rig i's container.
func (p Plan) node(i int, r Rig, t int) Node {
	n := Node{Rig: r.Name, Head: i == 0, Address: r.Address, GPUs: "count=" + strconv.Itoa(t)}
	n.Env = []string{"VLLM_HOST_IP=" + r.Address}
	if p.Interface != "" {
		n.Env = append(n.Env, "NCCL_SOCKET_IFNAME="+p.Interface, "GLOO_SOCKET_IFNAME="+p.Interface)
	}
	if n.Head {
		n.Name = fmt.Sprintf("rigbench-ray-%s-head", p.ID)
		n.Cmd = []string{"ray", "start", "--block", "--head", "--port=" + strconv.Itoa(p.RayPort), "--node-ip-address=" + r.Address}
	} else {
		n.Name = fmt.Sprintf("rigbench-ray-%s-node%d", p.ID, i+1)
		n.Cmd = []string{"ray", "start", "--block", "--address=" + p.HeadAddress, "--node-ip-address=" + r.Address}
	}
	return n
}

// serveConfig is the launch with the split and the Ray backend set; GPUs
// are the nodes' business, so the serve line requests none.
func serveConfig(c vllm.LaunchConfig, t, p int) vllm.LaunchConfig {
	c.Set("--tensor-parallel-size", strconv.Itoa(t))
	c.Set("--pipeline-parallel-size", strconv.Itoa(p))
	extra := c.Extra[:0:0]
	for i := 0; i < len(c.Extra); i++ {
		if name, _, _ := strings.Cut(c.Extra[i], "="); name == "--distributed-executor-backend" {
			if !strings.Contains(c.Extra[i], "=") {
				i++
			}
			continue
		}
		extra = append(extra, c.Extra[i])
	}
	c.Extra = append([]string{"--distributed-executor-backend", "ray"}, extra...)
	c.GPUs = ""
	return c
}
