package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// ClusterInput is a launch over several rigs as the user typed it: the
// CLI's --rigs, --interface and --node-ips (the app's Launch view gives
// the same texts), read by TargetInput.Options into a ClusterLauncher.
type ClusterInput struct {
	// Rigs is "head=ssh://a,ssh://b" (cluster.ParseRigs).
	Rigs string `json:"rigs"`
	// Interface is the link's network interface ("" lets NCCL choose).
	Interface string `json:"interface,omitempty"`
	// NodeIPs are the nodes' addresses on the link, comma-separated in the
	// order of the rigs, the head first; "" (or a short list) resolves
	// the rigs' host names.
	NodeIPs string `json:"node_ips,omitempty"`
	// RayPort and ServePort are the head's Ray port and the server's port
	// on the head rig (0: engine/cluster's defaults, 6379 and 8000).
	RayPort   int `json:"ray_port,omitempty"`
	ServePort int `json:"serve_port,omitempty"`
}

// Given reports whether the input names rigs: a launch over several rigs
// rather than one (a tune sweep keeps it in its spec then).
func (c ClusterInput) Given() bool { return strings.TrimSpace(c.Rigs) != "" }

// ifaceName is what Linux accepts as an interface name (IFNAMSIZ 16, no
// slash or space), and NCCL's "^" (exclude) and "=" (exact) prefixes.
var ifaceName = regexp.MustCompile(`^[\^=]?[A-Za-z0-9_.:-]{1,15}(,[A-Za-z0-9_.:-]{1,15})*$`)

// IsInterface reports whether s names a network interface (or NCCL's
// list of them) as a cluster launch takes it: --interface, and each value
// of a tune sweep's interface dimension.
func IsInterface(s string) bool { return ifaceName.MatchString(s) }

// launcher reads the texts into the one ClusterLauncher a front end
// starts, with how's policies (token, --no-gpu, pull progress, options).
func (c ClusterInput) launcher(cfg vllm.LaunchConfig, how Launching) (*ClusterLauncher, error) {
	specs, err := cluster.ParseRigs(c.Rigs)
	if err != nil {
		var re *cluster.RigsError
		if errors.As(err, &re) {
			return nil, &rundoc.FieldError{Field: FieldRigs, Msg: fmt.Sprintf("%q: %s", re.Value, re.Reason)}
		}
		return nil, err
	}
	iface := strings.TrimSpace(c.Interface)
	if iface != "" && !IsInterface(iface) {
		return nil, &rundoc.FieldError{Field: FieldInterface, Msg: fmt.Sprintf("must be a network interface's name, such as enp1s0 (see `ip link` on the rigs), not %q", c.Interface)}
	}
	var ips []string
	if strings.TrimSpace(c.NodeIPs) != "" {
		ips = strings.Split(c.NodeIPs, ",")
		if len(ips) > len(specs) {
			return nil, &rundoc.FieldError{Field: FieldNodeIPs, Msg: fmt.Sprintf("names %d addresses for %d rigs", len(ips), len(specs))}
		}
		for i, ip := range ips {
			ips[i] = strings.TrimSpace(ip)
			if ips[i] != "" && net.ParseIP(ips[i]) == nil {
				return nil, &rundoc.FieldError{Field: FieldNodeIPs, Msg: fmt.Sprintf("%q is not an IP address: give each node's address on the link, such as 10.0.0.2", ip)}
			}
		}
	}
	if c.RayPort < 0 || c.RayPort > 65535 || c.ServePort < 0 || c.ServePort > 65535 {
		return nil, &rundoc.FieldError{Field: FieldRigs, Msg: "ports must be from 1 to 65535"}
	}
	opts := how.dockerOptions(&cfg)
	return &ClusterLauncher{Config: cfg, Specs: specs, Addresses: ips, Interface: iface, RayPort: c.RayPort, ServePort: c.ServePort,
		Options: append(opts, how.Options...), Pull: how.Pull, Getenv: how.Getenv}, nil
}

// PreviewID stands for the random name each cluster launch gives its
// containers, in a preview made before anything starts.
const PreviewID = "ID"

// Preview is the cluster as Start would plan it, before anything is
// reached: the texts read as a launch reads them (the same field errors),
// each rig taken to have the GPUs gpus holds for its name (as rig.Parse
// reads it: the app's rig picker knows the count of each rig it has
// read), the addresses given or each rig's host resolved, and the
// containers named with PreviewID. A rig gpus has no count for (or 0) is
// taken to have one, as a launch takes a rig whose GPUs it cannot read,
// and is named in assumed; the launch reads the real count on each rig
// and plans again. The app's Launch view shows it; the CLI's launch logs
// the real plan.
func (c ClusterInput) Preview(ctx context.Context, cfg vllm.LaunchConfig, gpus map[string]int) (plan cluster.Plan, assumed []string, err error) {
	l, err := c.launcher(cfg, Launching{})
	if err != nil {
		return cluster.Plan{}, nil, err
	}
	in := cluster.Input{Interface: l.Interface, Launch: l.Config, RayPort: l.RayPort, ServePort: l.ServePort, ID: PreviewID}
	for i, s := range l.Specs {
		host := s.Host
		if s.Kind != rig.SSH {
			host = "" // a Docker context's or the local daemon: this machine unless an address is given
		}
		addr, err := l.address(ctx, i, host)
		if err != nil {
			return cluster.Plan{}, nil, fmt.Errorf("rig %s: %w", s.Public(), err)
		}
		n := gpus[s.Name]
		if n < 1 {
			n = 1
			assumed = append(assumed, s.Public())
		}
		in.Rigs = append(in.Rigs, cluster.Rig{Name: s.Public(), GPUs: n, Address: addr})
	}
	plan, err = cluster.Propose(in)
	return plan, assumed, err
}
