// Package cluster plans one vLLM server over several rigs, vLLM's own way
// (docs "Distributed inference and serving", examples/online_serving/
// run_cluster.sh): the same image on every rig, a Ray head in a
// `--network host` container on the first rig, `ray start --address=HEAD:PORT
// --block` in a container on every other, a unique VLLM_HOST_IP per node,
// the NCCL and Gloo interface on the link between them, then `vllm serve …
// --tensor-parallel-size T --pipeline-parallel-size P
// --distributed-executor-backend ray` in the head's container.
//
// It proposes T × P from the rigs' GPUs (Propose), writes every `docker run`
// line and the serve line a person could type (Plan's methods), reads the
// --rigs text (ParseRigs) and judges the facts gathered before anything
// starts (Check). It starts nothing: engine/session's ClusterLauncher runs a
// Plan through each rig's Docker connection.
package cluster
