package session

// The running cluster as a session measures it, and what ends it.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware/probe"
)

// server is the running cluster as a session measures it.
func (c *ClusterLauncher) server(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, link *rundoc.ClusterLink, served *docker.Container, took time.Duration) *Server {
	facts := served.Facts()
	rec := plan.Serve.Record()
	rec.DockerCommand = strings.Join(plan.DockerCommands(), "\n")
	rec.ServeCommand = plan.ServeLine()
	rec.Startup = &rundoc.Startup{LoadS: took.Seconds(), WeightsS: facts.WeightsS, CompileS: facts.CompileS,
		GraphCaptureS: facts.GraphCaptureS, CompileCacheHit: facts.CompileCacheHit}
	rec.Cluster = &rundoc.Cluster{TP: plan.Split.TP, PP: plan.Split.PP, Interface: plan.Interface, Link: link,
		HiddenSize: c.hiddenSize(ctx, plan.Serve.Model)}
	for _, r := range rigs {
		rec.Cluster.Rigs = append(rec.Cluster.Rigs, r.name)
	}
	hw, gpus := clusterHardware(rigs)
	rec.Cluster.GPUs = gpus
	w := watchCluster(rigs, served)
	var stopOnce sync.Once
	var stopErr error
	return &Server{
		Endpoint:    served.Endpoint(),
		APIKey:      served.APIKey(),
		Model:       plan.Serve.ServedModelName(),
		Version:     facts.Version,
		KVCapacity:  facts.KVCacheTokens,
		KVCacheGiB:  facts.KVCacheGiB,
		WeightsGiB:  facts.WeightsGiB,
		MaxModelLen: MaxModelLen(plan.Serve),
		Record:      &rec,
		Rig:         &rundoc.Rig{Kind: RigRecord(rigs[0].conn).Kind, Name: rec.Cluster.RigName()},
		Simulated:   isSimImage(c.Config.Image),
		Container:   rigs[0].node.Name(),
		Exited:      w.done,
		ExitReport:  func() string { return w.report(ctx, served) },
		Dial:        rigs[0].conn.Dial(),
		LinkLost:    w.linkLost,
		Exec:        served.Exec,
		Hardware:    &hw,
		Telemetry: func(ctx context.Context, log func(string)) (*probe.Sampler, error) {
			read, energy := clusterReadings(ctx, rigs)
			return startReadings(ctx, read, energy, fmt.Sprintf("the Ray node's container on each of the %d rigs", len(rigs)), log)
		},
		Stop: func(ctx context.Context) error {
			stopOnce.Do(func() { stopErr = stopCluster(ctx, rigs) })
			return stopErr
		},
	}
}

// clusterWatch merges what can end a cluster: the server, a node, a rig's
// link. The server ends when a node does (vLLM's engine dies with a Ray
// worker), often before the node's own end is seen, so the cause is kept
// apart from the end: the first node or link that ended.
type clusterWatch struct {
	done     chan struct{} // the cluster ended
	once     sync.Once
	nodeDone chan struct{} // a node or a rig's link ended: cause or lost says which
	nodeOnce sync.Once
	mu       sync.Mutex
	cause    string
	lost     error
}

func watchCluster(rigs []*clusterRig, served *docker.Container) *clusterWatch {
	w := &clusterWatch{done: make(chan struct{}), nodeDone: make(chan struct{})}
	end := func() { w.once.Do(func() { close(w.done) }) }
	nodeEnded := func(cause string, lost error) {
		w.nodeOnce.Do(func() {
			w.mu.Lock()
			w.cause, w.lost = cause, lost
			w.mu.Unlock()
			close(w.nodeDone)
		})
		end()
	}
	go func() {
		<-served.Exited()
		end()
	}()
	for _, r := range rigs {
		go func() {
			lostErr := func() error {
				return fmt.Errorf("%w; RigBench stops the cluster on the other rigs, and the node on this one ends by itself once its head is gone",
					r.conn.LostError())
			}
			select {
			case <-r.conn.Lost():
				nodeEnded("", lostErr())
			case <-r.node.Exited():
				// A dropped tunnel ends the node's log too: give the link
				// a moment to say so before blaming the node.
				if r.conn.Remote() {
					select {
					case <-r.conn.Lost():
						nodeEnded("", lostErr())
						return
					case <-time.After(linkLostWait):
					}
				}
				nodeEnded(fmt.Sprintf("the Ray node on rig %s stopped (its last log line: %q)", r.name, lastLine(r.node)), nil)
			}
		}()
	}
	return w
}

// nodeCause waits, once the cluster ended, up to twice linkLostWait for
// the node or link whose end took the server with it, and returns it.
func (w *clusterWatch) nodeCause() (string, error) {
	select {
	case <-w.nodeDone:
	case <-time.After(2 * linkLostWait):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cause, w.lost
}

// linkLost is the sentence of a rig whose link dropped, nil while every
// link is up (bench.Runner.LinkLost).
func (w *clusterWatch) linkLost() error {
	select {
	case <-w.done:
	case <-time.After(linkLostWait):
		return nil
	}
	_, lost := w.nodeCause()
	return lost
}

// report says why the cluster ended: the rig whose link dropped, the node
// that stopped (with what the server said as it died), or the server's
// own end.
func (w *clusterWatch) report(ctx context.Context, served *docker.Container) string {
	cause, lost := w.nodeCause()
	switch {
	case lost != nil:
		return lost.Error()
	case cause != "":
		return cause + "; vllm serve then ended: " + served.ExitReport(ctx)
	}
	return served.ExitReport(ctx)
}
