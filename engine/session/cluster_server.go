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
)

// server is the running cluster as a session measures it.
func (c *ClusterLauncher) server(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, served *docker.Container, took time.Duration) *Server {
	facts := served.Facts()
	rec := plan.Serve.Record()
	rec.DockerCommand = strings.Join(plan.DockerCommands(), "\n")
	rec.ServeCommand = plan.ServeLine()
	rec.Startup = &rundoc.Startup{LoadS: took.Seconds(), WeightsS: facts.WeightsS, CompileS: facts.CompileS,
		GraphCaptureS: facts.GraphCaptureS, CompileCacheHit: facts.CompileCacheHit}
	rec.Cluster = &rundoc.Cluster{TP: plan.Split.TP, PP: plan.Split.PP, Interface: plan.Interface}
	for _, r := range rigs {
		rec.Cluster.Rigs = append(rec.Cluster.Rigs, r.name)
	}
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
		Simulated:   strings.Contains(c.Config.Image, "rigbench-sim"),
		Container:   rigs[0].node.Name(),
		Exited:      w.done,
		ExitReport:  func() string { return w.report(ctx, served) },
		Dial:        rigs[0].conn.Dial(),
		LinkLost:    w.linkLost,
		Exec:        served.Exec,
		Hardware:    &rigs[0].hw,
		Stop: func(ctx context.Context) error {
			stopOnce.Do(func() { stopErr = stopCluster(ctx, rigs) })
			return stopErr
		},
	}
}

// clusterWatch merges what can end a cluster: the server, a node, a rig's
// link.
type clusterWatch struct {
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	cause string
	lost  error
}

func watchCluster(rigs []*clusterRig, served *docker.Container) *clusterWatch {
	w := &clusterWatch{done: make(chan struct{})}
	end := func(cause string, lost error) {
		w.once.Do(func() {
			w.mu.Lock()
			w.cause, w.lost = cause, lost
			w.mu.Unlock()
			close(w.done)
		})
	}
	go func() {
		select {
		case <-served.Exited():
			end("", nil)
		case <-w.done:
		}
	}()
	for _, r := range rigs {
		go func() {
			select {
			case <-r.conn.Lost():
				end("", fmt.Errorf("%w; RigBench stops the cluster on the other rigs, and the node on this one ends by itself once its head is gone",
					r.conn.LostError()))
			case <-r.node.Exited():
				end(fmt.Sprintf("the Ray node on rig %s stopped (%s)", r.name, lastLine(r.node)), nil)
			case <-w.done:
			}
		}()
	}
	return w
}

// linkLost is the sentence of a rig whose link dropped, nil while every
// link is up (bench.Runner.LinkLost).
func (w *clusterWatch) linkLost() error {
	select {
	case <-w.done:
	case <-time.After(linkLostWait):
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost
}

// report says why the cluster ended.
func (w *clusterWatch) report(ctx context.Context, served *docker.Container) string {
	w.mu.Lock()
	cause, lost := w.cause, w.lost
	w.mu.Unlock()
	switch {
	case lost != nil:
		return lost.Error()
	case cause != "":
		return cause
	}
	return served.ExitReport(ctx)
}
