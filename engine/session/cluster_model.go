package session

// Whether every rig has the model in its Hugging Face cache, asked before
// any node starts.

import (
	"context"
	"path"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/vllm"
)

// checkModel looks, before any node starts, for the model's snapshot in
// the Hugging Face cache folder each rig's node would mount: a container
// of the launch image with that folder bound as the node binds it is
// created on the rig, never started, looked into and removed
// (docker.HasPathIn), through the rig's own Docker connection, so the same
// question works on the local daemon, an ssh:// rig and a Docker context.
// cluster.CheckModel judges what it finds: an offline launch missing the
// model on a rig is a problem naming the rig; a download a rig will make
// is logged as a note. A model that is not a Hugging Face id (a path in
// the image) is not looked for. A rig that cannot be asked is logged and
// counted as having the model: vLLM says so itself if it cannot load it.
func (c *ClusterLauncher) checkModel(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, log func(string)) []cluster.Problem {
	model := plan.Serve.Model
	if predict.CheckID(model) != nil {
		return nil
	}
	var found []cluster.ModelFound
	if plan.Serve.HFCache != "" {
		found = c.findModel(ctx, rigs, plan, path.Join(vllm.ContainerHFCache, "hub", predict.HFModelFolder(model), "snapshots"), log)
	}
	probs, notes := cluster.CheckModel(plan, found)
	for _, n := range notes {
		log("note: " + n)
	}
	return probs
}

// findModel is, for each rig, whether the container path snaps exists
// with the rig's node mounts bound.
func (c *ClusterLauncher) findModel(ctx context.Context, rigs []*clusterRig, plan cluster.Plan, snaps string, log func(string)) []cluster.ModelFound {
	found := make([]cluster.ModelFound, len(rigs))
	for i, r := range rigs {
		spec := plan.NodeSpec(i, "") // the node's image and mounts; no token needed to look
		ok, err := r.l.HasPathIn(ctx, spec.Image, spec.Binds, snaps)
		if err != nil {
			log("[" + r.name + "] warning: " + err.Error())
			ok = true
		}
		found[i] = cluster.ModelFound{Rig: r.name, Cached: ok}
	}
	return found
}
