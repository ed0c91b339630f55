package session

// Whether every node of a cluster has the model in its Hugging Face cache.

import (
	"context"
	"path"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/vllm"
)

// checkModel looks, once the nodes run and before vllm serve starts, for
// the model's snapshot in the Hugging Face cache each node mounts (its rig's
// cache folder), and judges what it found (cluster.CheckModel): an offline
// launch missing the model on a rig stops here with the rig named; a
// download a rig will make is logged. A model that is not a Hugging Face
// id (a path in the image) is not looked for.
func (c *ClusterLauncher) checkModel(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, log func(string)) error {
	model := plan.Serve.Model
	if predict.CheckID(model) != nil {
		return nil
	}
	var found []cluster.ModelFound
	if plan.Serve.HFCache != "" {
		snaps := path.Join(vllm.ContainerHFCache, "hub", predict.HFModelFolder(model), "snapshots")
		for _, r := range rigs {
			ok, err := r.node.HasPath(ctx, snaps)
			if err != nil {
				log("[" + r.name + "] warning: " + err.Error())
				ok = true // not known: vLLM says so itself if it cannot load it
			}
			found = append(found, cluster.ModelFound{Rig: r.name, Cached: ok})
		}
	}
	probs, notes := cluster.CheckModel(plan, found)
	for _, n := range notes {
		log("note: " + n)
	}
	if len(probs) > 0 {
		return problemsError(probs)
	}
	return nil
}
