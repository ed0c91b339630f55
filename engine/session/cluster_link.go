package session

// Measuring the link between the head and each worker before vLLM starts.

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// measureLinks runs engine/cluster's link test between the head's
// container and each worker's, over the addresses the nodes use, one
// worker at a time (two at once would share the head's link and each read
// half). It returns the slowest worker's figures (the pipeline waits for
// it), nil when none could be measured: a failed measurement is logged and
// the launch goes on, since the nodes have already joined over that link.
func (c *ClusterLauncher) measureLinks(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, log func(string)) *rundoc.ClusterLink {
	simulated := isSimImage(c.Config.Image)
	serverCmd, clientCmd := cluster.LinkCommands(simulated, plan.Nodes[0].Address, cluster.LinkPort(plan.RayPort), len(rigs)-1)
	tool := "python3 over sockets in the image"
	if simulated {
		tool = "the simulator's stand-in ray linktest (the simulated link)"
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var serveErr error
	go func() { defer wg.Done(); _, serveErr = rigs[0].node.Exec(ctx, serverCmd) }()
	var slow *rundoc.ClusterLink
	for _, r := range rigs[1:] {
		out, err := r.node.Exec(ctx, clientCmd)
		var l cluster.Link
		if err == nil {
			l, err = cluster.ParseLink(out)
		}
		if err != nil {
			log(fmt.Sprintf("[%s] warning: the link to the head could not be measured (%s); the cluster starts without the figure", r.name, cluster.OneLine(err)))
			continue
		}
		log(fmt.Sprintf("[%s] link to the head %s: %s (measured with %s)", r.name, rigs[0].name, l.Text(), tool))
		if slow == nil || l.Gbps < slow.Gbps {
			slow = &rundoc.ClusterLink{Gbps: l.Gbps, RTTUS: l.RTTUS, Rig: r.name, Tool: tool}
		}
	}
	wg.Wait()
	if serveErr != nil && slow == nil {
		log("warning: the head's side of the link test ended: " + cluster.OneLine(serveErr))
	}
	return slow
}

// isSimImage is whether a launch's image is the simulator's (the rule
// Server.Simulated follows).
func isSimImage(image string) bool { return strings.Contains(image, "rigbench-sim") }

// hiddenSize is the model's hidden size as this computer knows it offline
// (a simulator profile's, the Hugging Face cache's config.json, RigBench's
// cache of the Hub's facts), 0 when it does not: it sizes what a pipeline
// hand-off sends (the network-bound diagnosis), and asking the Hub would
// hold the launch up for a figure the run can do without.
func (c *ClusterLauncher) hiddenSize(ctx context.Context, model string) int {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	m, err := predict.Lookup{Offline: true, Getenv: c.Getenv}.Model(ctx, model)
	if err != nil {
		return 0
	}
	return m.Hidden
}
