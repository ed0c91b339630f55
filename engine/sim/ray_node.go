package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrRayUnreachable is the stand-in's failure to reach a head, worded as
// Ray's own `ray start --address` failure.
var ErrRayUnreachable = errors.New("ConnectionError: Could not connect to the Ray head (GCS)")

// dialRay connects to the head at addr, retrying refused connections until
// wait has passed (Ray retries the GCS for a while, so a worker started
// just before its head still joins). The error names the address and says
// what to check.
func dialRay(ctx context.Context, addr string, wait time.Duration, now func() time.Time) (*rayConn, error) {
	if now == nil {
		now = time.Now
	}
	deadline := now().Add(wait)
	var d net.Dialer
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			return newRayConn(c), nil
		}
		if ctx.Err() != nil || !now().Before(deadline) {
			return nil, fmt.Errorf("%w at %s: %v. Check that (1) the head started (`ray start --head`) at that address and port, "+
				"(2) this node reaches it (firewall, --network host, the right interface)", ErrRayUnreachable, addr, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// JoinRay registers node with the head at addr and keeps its heartbeat
// until ctx ends (nil) or the head goes away (an error: a worker's Ray
// exits when it loses the head). joined, when not nil, gets the node's ID
// once the head accepted it.
func JoinRay(ctx context.Context, addr string, node RayNode, wait time.Duration, joined func(id string)) error {
	rc, err := dialRay(ctx, addr, wait, nil)
	if err != nil {
		return err
	}
	defer rc.c.Close()
	if err := rc.send(rayMsg{Op: "register", Node: &node}); err != nil {
		return fmt.Errorf("registering with the head at %s: %w", addr, err)
	}
	m, err := rc.recv()
	if err != nil || m.Op != "ok" {
		return fmt.Errorf("the head at %s did not accept this node: %v %s", addr, err, m.Error)
	}
	if joined != nil {
		joined(m.ID)
	}
	lost := make(chan error, 1)
	go func() {
		for {
			if _, err := rc.recv(); err != nil {
				lost <- err
				return
			}
		}
	}()
	tick := time.NewTicker(RayHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-lost:
			return fmt.Errorf("lost the Ray head at %s (%v): this node leaves the cluster", addr, err)
		case <-tick.C:
			if err := rc.send(rayMsg{Op: "heartbeat"}); err != nil {
				return fmt.Errorf("lost the Ray head at %s (%v): this node leaves the cluster", addr, err)
			}
		}
	}
}

// RayStatus asks the head at addr for its nodes.
func RayStatus(ctx context.Context, addr string) ([]RayNode, error) {
	rc, err := dialRay(ctx, addr, 0, nil)
	if err != nil {
		return nil, err
	}
	defer rc.c.Close()
	if err := rc.send(rayMsg{Op: "status"}); err != nil {
		return nil, err
	}
	m, err := rc.recv()
	if err != nil {
		return nil, fmt.Errorf("reading the status from the head at %s: %w", addr, err)
	}
	return m.Nodes, nil
}

// RayClaim is a server's hold on its world: the nodes it was placed on and
// the news of their deaths.
type RayClaim struct {
	// Nodes are the nodes the world was placed on, each with the GPUs it
	// gives, the head first.
	Nodes []RayNode
	// Lost receives the first node of the world that died (or a node with
	// an empty ID when the head itself went away), then closes.
	Lost <-chan RayNode
	rc   *rayConn
}

// Close gives the world back.
func (c *RayClaim) Close() { c.rc.c.Close() }

// ClaimRay asks the head at addr for a world of tp × pp GPUs, as vLLM's Ray
// executor asks for a placement group. Too few GPUs among the alive nodes
// fail with ErrRayTooFewGPUs (vLLM's words).
func ClaimRay(ctx context.Context, addr string, tp, pp int) (*RayClaim, error) {
	rc, err := dialRay(ctx, addr, 0, nil)
	if err != nil {
		return nil, err
	}
	if err := rc.send(rayMsg{Op: "claim", TP: tp, PP: pp}); err != nil {
		rc.c.Close()
		return nil, err
	}
	m, err := rc.recv()
	switch {
	case err != nil:
		rc.c.Close()
		return nil, fmt.Errorf("reading the placement from the Ray head at %s: %w", addr, err)
	case m.Op == "error":
		rc.c.Close()
		if len(m.Error) >= len(ErrRayTooFewGPUs.Error()) && m.Error[:len(ErrRayTooFewGPUs.Error())] == ErrRayTooFewGPUs.Error() {
			return nil, fmt.Errorf("%w%s", ErrRayTooFewGPUs, m.Error[len(ErrRayTooFewGPUs.Error()):])
		}
		return nil, errors.New(m.Error)
	}
	lost := make(chan RayNode, 1)
	go func() {
		defer close(lost)
		for {
			m, err := rc.recv()
			if err != nil {
				lost <- RayNode{}
				return
			}
			if m.Op == "node_dead" && m.Node != nil {
				lost <- *m.Node
				return
			}
		}
	}()
	return &RayClaim{Nodes: m.Nodes, Lost: lost, rc: rc}, nil
}
