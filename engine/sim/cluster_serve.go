package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrNoRayCluster is Ray's failure to find a cluster to join, which a
// "ray" backend with no head address meets.
var ErrNoRayCluster = errors.New("ConnectionError: Could not find any running Ray instance. " +
	"Please specify the one to connect to by setting `--address` flag or `RAY_ADDRESS` environment variable.")

// claimCluster places a "ray" backend's world on the stand-in cluster at
// cfg.RayAddress, as vLLM's Ray executor creates its placement group, and
// records the placement in cfg for the time model. Other backends claim
// nothing (nil, nil).
func claimCluster(ctx context.Context, cfg *Config, logw io.Writer) (*RayClaim, error) {
	if cfg.DistributedExecutorBackend != "ray" {
		return nil, nil
	}
	if cfg.RayAddress == "" {
		return nil, ErrNoRayCluster
	}
	tp, pp := parallelSize(*cfg)
	claim, err := ClaimRay(ctx, cfg.RayAddress, tp, pp)
	if err != nil {
		return nil, err
	}
	cfg.RayPlacement = &claim.Nodes
	var where []string
	for _, n := range claim.Nodes {
		where = append(where, fmt.Sprintf("%s (%s, %d GPU)", n.Address, n.ID, n.GPUs))
	}
	fmt.Fprintf(logw, "INFO %s [ray_utils.py:346] Connected to Ray cluster at %s %s; world size %d "+
		"(tensor parallel %d × pipeline parallel %d) placed on %s\n",
		time.Now().Format("01-02 15:04:05"), cfg.RayAddress, RayStandInNote, tp*pp, tp, pp, strings.Join(where, ", "))
	return claim, nil
}

// watchCluster kills the engine when a node of its world dies, as vLLM's
// engine dies when a Ray worker actor does.
func watchCluster(s *Server, claim *RayClaim, logw io.Writer) {
	select {
	case n, ok := <-claim.Lost:
		if !ok {
			return
		}
		select {
		case <-s.done:
			return // the server is stopping: its own Close ended the claim
		default:
		}
		what := "the Ray head went away"
		if n.ID != "" {
			what = fmt.Sprintf("node %s (%s) died", n.ID, n.Address)
		}
		fmt.Fprintf(logw, "ERROR %s [ray_distributed_executor.py:517] ray.exceptions.ActorDiedError: The actor died unexpectedly "+
			"before finishing this task: a RayWorkerWrapper of this server's world was lost (%s).\n",
			time.Now().Format("01-02 15:04:05"), what)
		s.kill()
	case <-s.done:
	}
}
