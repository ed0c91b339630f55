package cluster

import (
	"fmt"
	"strings"
)

// ModelFound is what was found of the served model on one rig, before its
// node starts, in the Hugging Face cache folder the node mounts.
type ModelFound struct {
	// Rig is the rig's name.
	Rig string
	// Cached is true when the cache holds a snapshot of the model
	// (hub/models--ORG--NAME/snapshots).
	Cached bool
}

// CheckModel judges whether every node can load the model: vLLM loads the
// weights of its stages on every node, from the node's own Hugging Face
// cache, downloading them where they are missing. A rig without the
// model is a problem when the launch is offline (HF_HUB_OFFLINE set in its
// environment: the download would fail on that node after the others
// waited), and otherwise a note of the download that rig's node will make
// at start. With no cache folder mounted every node downloads the model at
// each start, which is a note too. found is in the order of the rigs.
func CheckModel(p Plan, found []ModelFound) (probs []Problem, notes []string) {
	model, cache := p.Serve.Model, p.Serve.HFCache
	if cache == "" {
		return nil, []string{fmt.Sprintf("no Hugging Face cache folder is mounted, so every node downloads %s at each start: give the launch a cache folder (--hf-cache) that each rig keeps", model)}
	}
	offline := Offline(p.Serve.Env)
	for _, f := range found {
		if f.Cached {
			continue
		}
		if offline {
			probs = append(probs, Problem{"model", f.Rig, fmt.Sprintf("rig %s does not have %s in its Hugging Face cache (%s) and the launch is offline (HF_HUB_OFFLINE): download it there first (`hf download %s` on the rig, with HF_HOME at that folder), or drop HF_HUB_OFFLINE so the node downloads it",
				f.Rig, model, cache, model)})
			continue
		}
		notes = append(notes, fmt.Sprintf("rig %s does not have %s in its Hugging Face cache (%s): its node downloads the model's weights when vllm serve starts (once; later launches find them), and the start waits for it; `hf download %s` on the rig beforehand saves that wait",
			f.Rig, model, cache, model))
	}
	return probs, notes
}

// Offline reports whether env (NAME=VALUE each) sets HF_HUB_OFFLINE on, as
// huggingface_hub reads it: 1, ON, YES or TRUE, in any case.
func Offline(env []string) bool {
	for _, e := range env {
		name, v, ok := strings.Cut(e, "=")
		if ok && name == "HF_HUB_OFFLINE" {
			switch strings.ToUpper(strings.TrimSpace(v)) {
			case "1", "ON", "YES", "TRUE":
				return true
			}
		}
	}
	return false
}
