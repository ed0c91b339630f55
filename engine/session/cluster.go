package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

// DefaultJoinTimeout bounds the wait for every node to join the head: a
// worker that has not joined by then is named, and the cluster stopped.
const DefaultJoinTimeout = 3 * time.Minute

// ClusterLauncher launches one vLLM server over several rigs (engine/cluster
// plans it): on each rig it removes what a crashed RigBench left, makes sure
// of the image, reads the GPUs, and checks the facts and the model in the
// rig's Hugging Face cache; only then does it start the Ray head and the
// workers through each rig's own Docker connection, waits
// (bounded, with progress) until the head sees every node, runs `vllm
// serve` in the head's container and waits for it as a single launch
// waits. Its Server is measured like any launched server; its Stop stops
// every node on every rig, and its Exited closes when any node, any rig's
// link or the server ends.
type ClusterLauncher struct {
	// Config is the launch every node runs: the image, the HF cache and
	// token on every node, the model and flags in the serve line.
	Config vllm.LaunchConfig
	// Rigs are the cluster's rigs, connected, the head first (nil: the
	// local daemon). The caller closes them. When Rigs is empty, Launch
	// connects to Specs itself and closes them when the cluster stops.
	Rigs []*rig.Conn
	// Specs are the rigs to connect to when Rigs is empty.
	Specs []rig.Spec
	// Addresses are the nodes' IP addresses on the link, one per rig;
	// an empty one is the rig's host name resolved (127.0.0.1 for the
	// local daemon).
	Addresses []string
	// Interface is the link's interface (NCCL_SOCKET_IFNAME and
	// GLOO_SOCKET_IFNAME on every node); "" leaves NCCL to choose.
	Interface string
	// RayPort and ServePort are the head's Ray port and the server's
	// port on the head rig's loopback (0: engine/cluster's defaults).
	RayPort, ServePort int
	// Options go to engine/docker on every rig (tests: WithoutGPU).
	Options []docker.Option
	// JoinTimeout bounds the wait for the nodes (0: DefaultJoinTimeout).
	JoinTimeout time.Duration
	// Poll is how often the head is asked (0: every second).
	Poll time.Duration
	// Pull receives image pull progress (nil: none).
	Pull func(docker.PullProgress)
	// Getenv is where the token source "env" reads (nil: os.Getenv).
	Getenv func(string) string
}

var _ Launcher = (*ClusterLauncher)(nil)

// clusterRig is one rig of a launch under way.
type clusterRig struct {
	conn *rig.Conn
	name string
	l    *docker.Launcher
	node *docker.Container
	hw   hardware.Snapshot
}

// Launch starts the cluster and its server; on every error and on
// cancellation it stops what it started on every rig.
func (c *ClusterLauncher) Launch(ctx context.Context, log func(string)) (srv *Server, err error) {
	if log == nil {
		log = func(string) {}
	}
	conns, closeConns, err := c.connect(ctx, log)
	if err != nil {
		return nil, err
	}
	if len(conns) < 2 {
		closeConns()
		return nil, errors.New("a cluster needs two rigs or more")
	}
	rigs := make([]*clusterRig, len(conns))
	defer func() {
		if err != nil {
			stopCluster(ctx, rigs)
			closeConns()
		}
	}()
	ref := c.Config.ImageRef()
	facts := make([]cluster.RigFacts, len(rigs))
	in := cluster.Input{Interface: c.Interface, Launch: c.Config, RayPort: c.RayPort, ServePort: c.ServePort, ID: randomID()}
	for i, conn := range conns {
		r := &clusterRig{conn: conn, name: RigRecord(conn).Name}
		rigs[i] = r
		if r.l, err = c.prepare(ctx, r, log); err != nil {
			return nil, fmt.Errorf("rig %s: %w", r.name, err)
		}
		if facts[i], err = c.rigFacts(ctx, r, ref); err != nil {
			return nil, fmt.Errorf("rig %s: %w", r.name, err)
		}
		addr, err := c.address(ctx, i, connHost(conn))
		if err != nil {
			return nil, fmt.Errorf("rig %s: %w", r.name, err)
		}
		in.Rigs = append(in.Rigs, cluster.Rig{Name: r.name, GPUs: max(facts[i].GPUs, 1), Address: addr})
	}
	plan, err := cluster.Propose(in)
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("Cluster of %d rigs: %s (%s)", len(rigs), plan.Split.Text(), plan.Split.Why))
	for i, line := range plan.DockerCommands() {
		log(fmt.Sprintf("[%s] $ %s", rigs[i].name, line))
	}
	log(fmt.Sprintf("[%s] $ %s", rigs[0].name, plan.ServeLine()))
	// Every check, the model in each rig's cache among them, is judged
	// before any node starts, and every problem is told at once.
	probs := append(cluster.Check(plan, facts), c.checkModel(ctx, rigs, plan, log)...)
	if len(probs) > 0 {
		return nil, problemsError(probs)
	}
	if err := c.startNodes(ctx, rigs, plan, facts, log); err != nil {
		return nil, err
	}
	link := c.measureLinks(ctx, rigs, plan, log)
	t0 := time.Now()
	log("Starting vllm serve in the head's container…")
	served, err := rigs[0].l.StartServe(ctx, rigs[0].node, plan.Serve, plan.ServePort, func(line docker.LogLine) { log(line.Text) })
	if err != nil {
		return nil, err
	}
	srv = c.server(ctx, rigs, plan, link, served, time.Since(t0))
	stop := srv.Stop
	srv.Stop = func(ctx context.Context) error { err := stop(ctx); closeConns(); return err }
	return srv, nil
}

// connect is the rigs' connections: Rigs as given (the caller closes
// them), or Specs connected here (closed by the returned function).
func (c *ClusterLauncher) connect(ctx context.Context, log func(string)) ([]*rig.Conn, func(), error) {
	if len(c.Rigs) > 0 {
		return c.Rigs, func() {}, nil
	}
	var conns []*rig.Conn
	closeAll := func() {
		for _, conn := range conns {
			if conn != nil {
				conn.Close()
			}
		}
	}
	for _, s := range c.Specs {
		if s.Kind == rig.Local || s.Kind == "" {
			conns = append(conns, nil)
			continue
		}
		log("Connecting to rig " + s.Public() + "…")
		conn, err := rig.Connect(ctx, s, rig.Options{Getenv: c.Getenv})
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		conns = append(conns, conn)
	}
	return conns, closeAll, nil
}

// prepare reaches a rig's Docker, removes what a crashed RigBench left
// there (its nodes carry the same ownership labels as single launches),
// and makes sure of the image.
func (c *ClusterLauncher) prepare(ctx context.Context, r *clusterRig, log func(string)) (*docker.Launcher, error) {
	l, err := docker.New(ctx, append(RigOptions(ctx, r.conn), c.Options...)...)
	if err != nil {
		return nil, err
	}
	if n, err := l.CleanupLeftovers(ctx); err != nil {
		log("warning: " + err.Error())
	} else if n > 0 {
		log(fmt.Sprintf("[%s] removed %d container(s) left by an earlier RigBench run", r.name, n))
	}
	pull := c.Pull
	if pull == nil {
		pull = func(docker.PullProgress) {}
	}
	log(fmt.Sprintf("[%s] Checking image %s…", r.name, c.Config.ImageRef()))
	if err := l.EnsureImage(ctx, c.Config.ImageRef(), pull); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// rigFacts reads what the checks judge on one rig: the image's ID, its
// GPUs (nvidia-smi in the image, as the rig's hardware view reads them),
// and whether another RigBench server holds them.
func (c *ClusterLauncher) rigFacts(ctx context.Context, r *clusterRig, ref string) (cluster.RigFacts, error) {
	f := cluster.RigFacts{Rig: r.name}
	id, err := r.l.ImageID(ctx, ref)
	if err != nil {
		return f, err
	}
	f.ImageID = id
	snap, err := RigHardware(ctx, r.conn, []string{ref}, c.Options...)
	if err != nil {
		return f, err
	}
	r.hw = snap
	f.GPUs = len(snap.GPUs)
	f.FreeGPUs = f.GPUs
	if err := r.l.CheckFree(ctx, vllm.LaunchConfig{GPUs: "all"}); err != nil {
		f.FreeGPUs = 0
	}
	return f, nil
}

// connHost is the host a rig is reached at ("" for the local daemon).
func connHost(conn *rig.Conn) string {
	if conn == nil {
		return ""
	}
	return conn.Spec().Host
}

// address is rig i's node address: the one given, else its host resolved
// ("" is the local daemon: 127.0.0.1).
func (c *ClusterLauncher) address(ctx context.Context, i int, host string) (string, error) {
	if i < len(c.Addresses) && strings.TrimSpace(c.Addresses[i]) != "" {
		return strings.TrimSpace(c.Addresses[i]), nil
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if net.ParseIP(host) != nil {
		return host, nil
	}
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip4", host)
	if err != nil || len(ips) == 0 {
		return "", fmt.Errorf("cannot tell the node's address from %s (%v): give it with --node-ips", host, err)
	}
	return ips[0].String(), nil
}

// problemsError is the checks' problems, one sentence each.
func problemsError(probs []cluster.Problem) error {
	errs := make([]error, len(probs))
	for i, p := range probs {
		errs[i] = p
	}
	return fmt.Errorf("the cluster cannot start: %w", errors.Join(errs...))
}

// randomID names one cluster launch: its containers' names and label.
func randomID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
