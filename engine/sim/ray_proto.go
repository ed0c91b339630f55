package sim

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

// The stand-in Ray (ray_*.go) is what the simulator image answers as `ray`:
// a head that listens on TCP, workers that register their node with it and
// keep a heartbeat, and the `vllm serve --distributed-executor-backend ray`
// of the simulator claiming its world from the head. It imitates the part of
// Ray that vLLM's multi-node serving leans on, so that a worker started
// with a wrong head address, a worker that never came and a worker that died
// are real network faults in tests; it is no Ray (no GCS, no actors, no
// object store), and says so in its version and in `ray status`.

// RayStandInVersion is what the stand-in reports as its Ray version: the
// "-sim" suffix marks it a stand-in, as the stand-in nvidia-smi's driver
// version is marked.
const RayStandInVersion = "2.49.0-sim"

// RayStandInNote is the line `ray start` and `ray status` print so that no
// one reading a log mistakes the stand-in for Ray.
const RayStandInNote = "(RigBench simulator: a stand-in for Ray, not Ray)"

// RayDefaultPort is Ray's default head port (the GCS port).
const RayDefaultPort = 6379

// RayNode is one node of the stand-in cluster, as the head knows it.
type RayNode struct {
	// ID is the head's name for the node ("node_" and a number; the head
	// itself is node_1).
	ID string `json:"id"`
	// Address is the node's IP address (VLLM_HOST_IP or
	// --node-ip-address), as vLLM matches it.
	Address string `json:"address"`
	// GPUs is how many GPUs the node offers.
	GPUs int `json:"gpus"`
	// Head is true for the head node.
	Head bool `json:"head,omitempty"`
	// Alive is false once the node's connection closed or its heartbeat
	// stopped.
	Alive bool `json:"alive"`
}

// rayMsg is one line of the stand-in's wire protocol: newline-delimited
// JSON, each line one message, so a node's connection is one TCP stream
// whose close is the node's death.
//
//	worker → head: register{node}, then heartbeat every interval
//	head → worker: ok{id} or error
//	client → head: status → status{nodes}
//	serve → head:  claim{tp, pp} → placement{nodes} or error, then
//	               node_dead{node} when a node of the placement dies
type rayMsg struct {
	Op    string    `json:"op"`
	Node  *RayNode  `json:"node,omitempty"`
	Nodes []RayNode `json:"nodes,omitempty"`
	ID    string    `json:"id,omitempty"`
	TP    int       `json:"tp,omitempty"`
	PP    int       `json:"pp,omitempty"`
	Error string    `json:"error,omitempty"`
}

// maxRayLine bounds one protocol line: a peer that sends more is not a
// stand-in node.
const maxRayLine = 64 << 10

// errRayProtocol marks a line that is not a stand-in Ray message.
var errRayProtocol = errors.New("not a stand-in Ray message")

// parseRayMsg reads one protocol line.
func parseRayMsg(line []byte) (rayMsg, error) {
	var m rayMsg
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("%w: %v", errRayProtocol, err)
	}
	switch m.Op {
	case "register":
		if m.Node == nil || m.Node.GPUs < 0 || strings.TrimSpace(m.Node.Address) == "" {
			return m, fmt.Errorf("%w: register needs a node with an address and a GPU count", errRayProtocol)
		}
	case "claim":
		if m.TP < 1 || m.PP < 1 || m.TP > 1<<16 || m.PP > 1<<16 {
			return m, fmt.Errorf("%w: claim needs tp and pp of 1 or more", errRayProtocol)
		}
	case "heartbeat", "status", "ok", "error", "placement", "node_dead":
	default:
		return m, fmt.Errorf("%w: unknown op %q", errRayProtocol, m.Op)
	}
	return m, nil
}

// rayConn is one protocol connection: buffered lines in, lines out.
type rayConn struct {
	c  net.Conn
	sc *bufio.Scanner
}

func newRayConn(c net.Conn) *rayConn {
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 4096), maxRayLine)
	return &rayConn{c: c, sc: sc}
}

// send writes one message.
func (r *rayConn) send(m rayMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = r.c.Write(append(b, '\n'))
	return err
}

// recv reads one message; io.EOF when the peer closed.
func (r *rayConn) recv() (rayMsg, error) {
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			return rayMsg{}, err
		}
		return rayMsg{}, io.EOF
	}
	return parseRayMsg(r.sc.Bytes())
}
