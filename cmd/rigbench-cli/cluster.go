package main

import (
	"flag"

	"github.com/rigbench/rigbench/engine/session"
)

// clusterFlags are the flags of a launch over several rigs, shared by
// launch and run --launch; session.ClusterInput reads them.
type clusterFlags struct {
	rigs, iface, nodeIPs string
	rayPort, servePort   int
}

func (c *clusterFlags) register(fs *flag.FlagSet, prefix string) {
	fs.StringVar(&c.rigs, "rigs", "", prefix+"serve one model over several rigs with vLLM's Ray cluster: head=ssh://user@a,ssh://user@b (the head first or marked head=; see docs/rigs.md)")
	fs.StringVar(&c.iface, "interface", "", "with --rigs, the network interface of the link between the rigs (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME), such as enp1s0")
	fs.StringVar(&c.nodeIPs, "node-ips", "", "with --rigs, each node's IP address on the link, in the order of --rigs (default: the rigs' host names resolved)")
	fs.IntVar(&c.rayPort, "ray-port", 0, "with --rigs, the Ray head's port (default 6379)")
	if prefix != "" { // launch has --port for the server
		fs.IntVar(&c.servePort, "serve-port", 0, "with --rigs, the server's port on the head rig's loopback (default 8000)")
	}
}

// input is the flags as session.ClusterInput takes them.
func (c clusterFlags) input() session.ClusterInput {
	return session.ClusterInput{Rigs: c.rigs, Interface: c.iface, NodeIPs: c.nodeIPs, RayPort: c.rayPort, ServePort: c.servePort}
}
