package session

// Starting a cluster's nodes, waiting for them to join, and stopping them.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// startNodes starts the head, then every worker, and waits until the head
// sees them all.
func (c *ClusterLauncher) startNodes(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, facts []cluster.RigFacts, log func(string)) error {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	token := c.Config.Token(getenv)
	for i, r := range rigs {
		spec := plan.NodeSpec(i, token)
		name := r.name
		node, err := r.l.StartNode(ctx, spec, func(line docker.LogLine) { log("[" + name + "] " + line.Text) })
		if err != nil {
			return fmt.Errorf("rig %s: %w", r.name, err)
		}
		r.node = node
		if i == 0 {
			if err := c.waitNodes(ctx, rigs[:1], plan, facts, log); err != nil {
				return err
			}
		}
	}
	return c.waitNodes(ctx, rigs, plan, facts, log)
}

// waitNodes asks the head's `ray status` until it counts every node of
// rigs, bounded by the join timeout. A worker whose `ray start` ended
// could not reach the head: its last line is the reach check's failure. At
// the deadline the rigs whose workers never said "Ray runtime started"
// are named.
func (c *ClusterLauncher) waitNodes(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, facts []cluster.RigFacts, log func(string)) error {
	timeout, poll := c.JoinTimeout, c.Poll
	if timeout <= 0 {
		timeout = DefaultJoinTimeout
	}
	if poll <= 0 {
		poll = time.Second
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	last := -1
	for {
		for i, r := range rigs {
			select {
			case <-r.node.Exited():
				if i == 0 {
					return fmt.Errorf("the Ray head on %s stopped: %s", r.name, lastLine(r.node))
				}
				facts[i].Probed, facts[i].Reach = true, errors.New(lastLine(r.node))
				var reach []cluster.Problem
				for _, p := range cluster.Check(plan, facts) {
					if p.Check == "reach" {
						reach = append(reach, p)
					}
				}
				return problemsError(reach)
			default:
			}
		}
		if out, err := rigs[0].node.Exec(ctx, []string{"ray", "status"}); err == nil {
			if st, err := cluster.ParseStatus(out); err == nil {
				if st.Nodes != last {
					last = st.Nodes
					log(fmt.Sprintf("Ray: %d of %d node(s) joined the head", st.Nodes, len(rigs)))
				}
				if st.Nodes >= len(rigs) {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("after %s the Ray head sees %d of %d nodes; %s: check their logs above, the head's address %s and its firewall",
				rundoc.ShortDuration(timeout), max(last, 0), len(rigs), missing(rigs), plan.HeadAddress)
		case <-tick.C:
		}
	}
}

// missing names the rigs whose node has not said it started.
func missing(rigs []*clusterRig) string {
	var out []string
	for _, r := range rigs {
		joined := false
		for _, l := range r.node.Tail() {
			if strings.Contains(l.Text, "Ray runtime started") {
				joined = true
			}
		}
		if !joined {
			out = append(out, r.name)
		}
	}
	if len(out) == 0 {
		return "every node started but not all joined"
	}
	return "not joined: " + strings.Join(out, ", ")
}

// lastLine is a node container's last log line that says something (Ray
// frames its banner with rules of dashes), or why there is none.
func lastLine(c *docker.Container) string {
	tail := c.Tail()
	for i := len(tail) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(tail[i].Text); strings.Trim(t, "-=") != "" {
			return t
		}
	}
	return "its container ended without a word"
}

// stopCluster stops every node that started, on every rig at once (a
// worker whose rig cannot be reached ends by itself once its head is
// stopped: its Ray loses the head and its daemon removes its container),
// and closes the rigs' launchers. It returns what could not be stopped,
// each naming its rig.
func stopCluster(ctx context.Context, rigs []*clusterRig) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
	defer cancel()
	errs := make([]error, len(rigs))
	var wg sync.WaitGroup
	for i, r := range rigs {
		if r == nil || r.l == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r.node != nil {
				if lost := r.conn.LostError(); lost != nil {
					errs[i] = fmt.Errorf("%w; its node %s ends by itself once the head is gone", lost, r.node.Name())
				} else if err := r.node.Stop(ctx); err != nil {
					errs[i] = fmt.Errorf("rig %s: %w", r.name, err)
				}
			}
			r.l.Close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
