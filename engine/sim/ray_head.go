package sim

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Ray's defaults for declaring a node dead: the GCS checks each node every
// 3 s and gives up after 5 missed checks. The stand-in's workers beat every
// RayHeartbeat, and the head declares a node dead whose last beat is older
// than RayNodeTimeout, or at once when its connection closes (a killed
// container's kernel closes it).
const (
	RayHeartbeat   = 3 * time.Second
	RayNodeTimeout = 5 * RayHeartbeat
)

// RayHead is the stand-in's head node: it listens on TCP, keeps the nodes
// that registered (itself first), answers `ray status`, and places a
// `vllm serve`'s world on the nodes' GPUs, telling the server when a node
// it uses dies.
type RayHead struct {
	ln      net.Listener
	now     func() time.Time
	timeout time.Duration

	mu     sync.Mutex
	nodes  []*headNode
	claims map[*rayConn][]string // a serve's connection → the node IDs it uses
	wg     sync.WaitGroup
	closed bool
}

// headNode is a registered node and its liveness.
type headNode struct {
	RayNode
	last time.Time
	conn *rayConn
}

// StartRayHead listens on addr (host:port; port 0 picks one) and serves the
// stand-in protocol. self is the head's own node (its address and GPUs).
// now is the head's clock for heartbeats (nil: time.Now); Sweep reads it.
func StartRayHead(addr string, self RayNode, now func() time.Time) (*RayHead, error) {
	if now == nil {
		now = time.Now
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ray start --head: cannot listen on %s: %w (is another head running there? choose another --port)", addr, err)
	}
	self.ID, self.Head, self.Alive = "node_1", true, true
	h := &RayHead{ln: ln, now: now, timeout: RayNodeTimeout, claims: map[*rayConn][]string{}}
	h.nodes = []*headNode{{RayNode: self, last: now()}}
	h.wg.Add(1)
	go h.accept()
	return h, nil
}

// Addr is the address the head listens on.
func (h *RayHead) Addr() string { return h.ln.Addr().String() }

// Nodes is every node that registered, the head first, alive or not.
func (h *RayHead) Nodes() []RayNode {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]RayNode, len(h.nodes))
	for i, n := range h.nodes {
		out[i] = n.RayNode
	}
	return out
}

// Close stops the head: every node's and every server's connection closes,
// which is how their processes learn the cluster is gone.
func (h *RayHead) Close() {
	h.mu.Lock()
	h.closed = true
	for _, n := range h.nodes {
		if n.conn != nil {
			n.conn.c.Close()
		}
	}
	for c := range h.claims {
		c.c.Close()
	}
	h.mu.Unlock()
	h.ln.Close()
	h.wg.Wait()
}

// Sweep declares dead every worker whose last heartbeat is older than the
// node timeout on the head's clock: a node that froze (its process
// stopped, its link cut without a reset) keeps its TCP connection open and
// is found only so. The head runs it every heartbeat; tests call it with
// their own clock.
func (h *RayHead) Sweep() {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	for _, n := range h.nodes {
		if !n.Head && n.Alive && now.Sub(n.last) > h.timeout {
			h.markDeadLocked(n)
		}
	}
}

func (h *RayHead) accept() {
	defer h.wg.Done()
	tick := time.NewTicker(RayHeartbeat)
	defer tick.Stop()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-tick.C:
				h.Sweep()
			case <-done:
				return
			}
		}
	}()
	for {
		c, err := h.ln.Accept()
		if err != nil {
			return
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.serve(newRayConn(c))
		}()
	}
}

// serve answers one connection: its first message says what it is.
func (h *RayHead) serve(rc *rayConn) {
	defer rc.c.Close()
	m, err := rc.recv()
	if err != nil {
		return
	}
	switch m.Op {
	case "register":
		h.serveNode(rc, *m.Node)
	case "status":
		rc.send(rayMsg{Op: "status", Nodes: h.Nodes()})
	case "claim":
		h.serveClaim(rc, m.TP, m.PP)
	default:
		rc.send(rayMsg{Op: "error", Error: "unexpected " + m.Op})
	}
}

// serveNode registers a worker and follows its heartbeats until its
// connection ends, which is its death.
func (h *RayHead) serveNode(rc *rayConn, node RayNode) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	n := &headNode{RayNode: node, last: h.now(), conn: rc}
	n.ID, n.Head, n.Alive = fmt.Sprintf("node_%d", len(h.nodes)+1), false, true
	h.nodes = append(h.nodes, n)
	h.mu.Unlock()
	if rc.send(rayMsg{Op: "ok", ID: n.ID}) != nil {
		h.markDead(n)
		return
	}
	for {
		m, err := rc.recv()
		if err != nil {
			h.markDead(n)
			return
		}
		if m.Op == "heartbeat" {
			h.mu.Lock()
			n.last = h.now()
			h.mu.Unlock()
		}
	}
}

func (h *RayHead) markDead(n *headNode) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.markDeadLocked(n)
}

// markDeadLocked declares n dead and tells every server that uses it.
func (h *RayHead) markDeadLocked(n *headNode) {
	if !n.Alive {
		return
	}
	n.Alive = false
	if n.conn != nil {
		n.conn.c.Close()
	}
	for c, ids := range h.claims {
		for _, id := range ids {
			if id == n.ID {
				c.send(rayMsg{Op: "node_dead", Node: &n.RayNode})
			}
		}
	}
}

// ErrRayTooFewGPUs is vLLM's refusal when the cluster has fewer GPUs than
// the world size (vllm/v1/executor/ray_utils.py, initialize_ray_cluster).
var ErrRayTooFewGPUs = errors.New("ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.")

// place puts a world of tp × pp ranks on the alive nodes, the head first
// (vLLM's driver node), then in the order they joined, each node's GPUs
// filled before the next: pipeline stage s holds ranks s·tp … s·tp+tp−1.
// It returns each used node with the GPUs it gives.
func place(nodes []RayNode, tp, pp int) ([]RayNode, error) {
	world, total, alive := tp*pp, 0, 0
	for _, n := range nodes {
		if n.Alive {
			total += n.GPUs
			alive++
		}
	}
	if world > total {
		return nil, fmt.Errorf("%w (world size %d; the cluster has %d alive node(s) with %d GPU(s) in all. "+
			"Check `ray status`, and start `ray start --address=HEAD:PORT --block` on every node.)", ErrRayTooFewGPUs, world, alive, total)
	}
	var used []RayNode
	for _, n := range nodes {
		if world == 0 {
			break
		}
		if !n.Alive || n.GPUs == 0 {
			continue
		}
		take := min(n.GPUs, world)
		n.GPUs = take
		used = append(used, n)
		world -= take
	}
	return used, nil
}

// serveClaim places a server's world and then watches its nodes for it,
// until the server's connection ends.
func (h *RayHead) serveClaim(rc *rayConn, tp, pp int) {
	h.mu.Lock()
	used, err := place(h.nodesLocked(), tp, pp)
	if err != nil || h.closed {
		h.mu.Unlock()
		if err == nil {
			err = errors.New("the head is stopping")
		}
		rc.send(rayMsg{Op: "error", Error: err.Error()})
		return
	}
	ids := make([]string, len(used))
	for i, n := range used {
		ids[i] = n.ID
	}
	h.claims[rc] = ids
	rc.send(rayMsg{Op: "placement", Nodes: used})
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.claims, rc)
		h.mu.Unlock()
	}()
	for {
		if _, err := rc.recv(); err != nil {
			return // the server stopped (or died): its claim ends
		}
	}
}

func (h *RayHead) nodesLocked() []RayNode {
	out := make([]RayNode, len(h.nodes))
	for i, n := range h.nodes {
		out[i] = n.RayNode
	}
	return out
}
