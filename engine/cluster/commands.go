package cluster

import (
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/vllm"
)

// NodeSpec is node i's container as engine/docker starts it: the node's
// command and environment, the launch's HF cache mounted where vLLM reads
// it, the token (when the launch has one) on every node, and the cluster's
// label. The launcher adds its own ownership labels (managed, owner,
// instance) at start, as it does for a single launch. token is the launch's
// Hugging Face token ("" for none).
func (p Plan) NodeSpec(i int, token string) docker.NodeSpec {
	n := p.Nodes[i]
	s := docker.NodeSpec{Name: n.Name, Image: p.Image, Cmd: n.Cmd, Env: append([]string(nil), n.Env...), GPUs: n.GPUs,
		Labels: map[string]string{docker.LabelCluster: p.ID, docker.LabelManaged: "true"}}
	// The launch's own variables (VLLM_LOGGING_LEVEL, a Ray setting) go
	// to every node; a bare name is copied from RigBench's environment by
	// the launcher, as for a single launch.
	s.Env = append(s.Env, p.Serve.Env...)
	if p.Serve.HFCache != "" {
		s.Binds = append(s.Binds, p.Serve.HFCache+":"+vllm.ContainerHFCache)
	}
	if token != "" {
		s.Env = append(s.Env, "HF_TOKEN="+token, "HUGGING_FACE_HUB_TOKEN="+token)
		s.Secrets = append(s.Secrets, token)
	}
	return s
}

// DockerCommands are every node's `docker run` line, the head's first, as
// a person would type them on each rig (a token shown as `-e HF_TOKEN`).
func (p Plan) DockerCommands() []string {
	out := make([]string, len(p.Nodes))
	for i := range p.Nodes {
		s := p.NodeSpec(i, "")
		if p.Serve.TokenSource == vllm.TokenInline || p.Serve.TokenSource == vllm.TokenEnv {
			s.Env = append(s.Env, "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
		}
		out[i] = s.DockerCommand()
	}
	return out
}

// ServeLine is the `docker exec … vllm serve …` line run on the head rig,
// with the API key RigBench sets shown as a placeholder.
func (p Plan) ServeLine() string {
	args := append([]string{"docker", "exec", p.Nodes[0].Name}, docker.ServeCommand(p.Serve, p.ServePort, "KEY")...)
	return vllm.JoinArgs(vllm.RedactArgs(args))
}
